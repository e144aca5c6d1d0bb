pragma circom 2.1.0;

// N = 1000: nConstraints = 1001
include "chain.circom";

component main {public [y]} = Chain(1000);
