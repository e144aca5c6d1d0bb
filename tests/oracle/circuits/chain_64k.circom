pragma circom 2.1.0;

// N = 65532: nConstraints = 65533
include "chain.circom";

component main {public [y]} = Chain(65532);
