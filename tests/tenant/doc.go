// Package tenant holds the tenant-trial integration tests: a ServiceAccount
// with edit in its own assigned namespace orders users, projects, role
// assignments and application credentials with its own token against a real
// stack running all four order reconcilers with one shared rotation budget,
// as the hub wires them (docs/reference/controlplane.md, "Namespace
// assignments" and "Rotation budget").
package tenant
