pragma circom 2.1.0;

// cuzk test circuit "nopub": no public inputs and no outputs.
// Only private constraints; the verification key has a single IC point.
template NoPub() {
    signal input x;
    signal input y;
    signal input z;

    signal xx;
    signal xy;
    signal s;

    xx <== x * x;
    xy <== xx * y;
    s  <== (xy + z) * (x - y);
    // x^2*y*... fixed: with x=3,y=5,z=4: xx=9, xy=45, s=(49)*(-2)=-98
    (s + 98) * z === 0;
}

component main = NoPub();
