//go:build race || opdebug

package ops

// Checked says that this build enforces the ownership rule of the ops' outputs (the race detector
// or the opdebug tag is on): see the package documentation.
const Checked = true
