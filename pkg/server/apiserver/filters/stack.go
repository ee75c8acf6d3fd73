package filters

// growStack grows the calling goroutine's stack, while it is still
// shallow, to what a request's handler needs. A new goroutine starts with
// a small stack, and decoding a JSON body (a recursive descent) overflows
// it again and again, each time copying the deep stack and adjusting
// every frame: with 64 clients creating ConfigMaps, 6% of the server's
// CPU went to copystack under the decoder. Growing it first copies
// almost nothing.
func growStack() { growStackTo([stackReserve]byte{}) }

// stackReserve is the frame growStack makes room for: the stack doubles
// to at least twice this.
const stackReserve = 16 << 10

//go:noinline
func growStackTo([stackReserve]byte) {}
