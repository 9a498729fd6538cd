// Package orders holds what every order kind shares: consent and gates, the
// ownership labels of projected children, the generic loop and status writer,
// name claims, backup, finalizer and teardown (docs/architecture.md).
package orders
