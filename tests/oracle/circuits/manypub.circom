pragma circom 2.1.0;

// cuzk test circuit "manypub": N public inputs, 4 public outputs, 1 private input.
// Public signals (snarkjs order): [out[0..3], in[0..N-1]].
template ManyPub(N) {
    signal input in[N];    // public
    signal input secret;   // private
    signal output out[4];

    signal acc[N + 1];
    acc[0] <== secret;
    for (var i = 0; i < N; i++) {
        acc[i + 1] <== acc[i] * (in[i] + secret + i);
    }
    out[0] <== acc[N];

    // one constraint with a long linear combination in A
    var lc = 0;
    for (var i = 0; i < N; i++) {
        lc += (i + 1) * in[i];
    }
    out[1] <== lc * secret;
    out[2] <== in[0] * in[N - 1];
    out[3] <== out[1] * out[2];
}

component main {public [in]} = ManyPub(40);
