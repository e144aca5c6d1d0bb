pragma circom 2.1.0;

// N = 16380: nConstraints = 16381
include "chain.circom";

component main {public [y]} = Chain(16380);
