// Package controlplane is the hub's ControlPlane reconciler: it fulfils the
// plane contract (docs/reference/controlplane.md, "Plane contract"): admin
// clouds.yaml Secrets, AdminCredentialReady from a real token request, the
// admin Domain import, and a tenant SecretStore per consented namespace
// (docs/reference/openbao.md). Duplicate planes are parked. Decisions are pure
// (desired.go, status.go, duplicate.go, classify.go); reconciler.go does I/O.
package controlplane
