pragma circom 2.1.0;

// cuzk test circuit "chain": parametric size.
// nConstraints = N + 1, public signals = [out (output), y (public input)], so
// snarkjs's domain is the smallest 2^p >= nConstraints + nPublic + 1 = N + 4.
template Chain(N) {
    signal input x;   // private
    signal input y;   // public
    signal output out;

    signal s[N + 1];
    s[0] <== x;
    for (var i = 0; i < N; i++) {
        // alternate squaring-like and multiplication steps with constants
        if (i % 2 == 0) {
            s[i + 1] <== (s[i] + i) * (s[i] + x);
        } else {
            s[i + 1] <== (s[i] - 1) * (y + i);
        }
    }
    out <== s[N] * y;
}
