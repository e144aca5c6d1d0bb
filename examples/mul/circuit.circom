pragma circom 2.1.0;

// cuzk test circuit "mul": c = a*b plus a few extra internal constraints.
// Public signals (snarkjs order): [c (output), k (public input)].
// Private inputs: a, b, d.
template Mul() {
    signal input a;        // private
    signal input b;        // private
    signal input d;        // private
    signal input k;        // public
    signal output c;       // public output

    signal t1;
    signal t2;
    signal t3;
    signal t4;
    signal t5;
    signal ak;

    c <== a * b;
    // constraints with constants and negative coefficients in A/B/C
    t1 <== (c + k) * (a - 2);
    t2 <== (t1 - 3 * b + 7) * (d + k);
    t3 <== t2 * t2;
    t4 <== t3 * (d - a);
    // an explicit === constraint on private wires and the public input
    t5 <== t4 * (k + 1);
    ak <== a * k;
    (t4 + a) * (k + 1) === t5 + ak + a;
}

component main {public [k]} = Mul();
