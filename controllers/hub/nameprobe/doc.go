// Package nameprobe answers the collision probe of a KeystoneProject or
// KeystoneUser about to be created (docs/reference/keystoneproject.md,
// "Collision probe"): is the name already taken in its domain? It asks
// Keystone once through the plane's admin session (grants.Sessions) instead
// of through a K-ORC import, so the managed create no longer waits a K-ORC
// round trip (docs/performance.md, "Next cuts").
package nameprobe
