package eventttl

// LastWrite bridges to the external tests, which run against a live
// server and so cannot live in this package (pkg/server imports it).
var LastWrite = lastWrite
