// Package lifecycle is the lowest layer of the hub's reconcile skeleton:
// one status writer with one event policy for every hub kind, the progress
// value a pass ends with, and Run, the loop of the kinds that are not orders
// (ControlPlane, CredentialRotation). The order kinds run orders.Loop, which
// ends every pass through the same writer and progress value.
package lifecycle
