package conditions

import c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"

// Gate is the shared gates' verdict: Reason is a c5c3v1alpha1 reason constant,
// empty when open; Message names the remedy
// (docs/reference/keystoneapplicationcredential.md, "Conditions").
type Gate struct{ Reason, Message string }

// Passed reports an open gate (empty Reason).
func (g Gate) Passed() bool { return g.Reason == "" }

// Frozen reports the NamespaceNotAssigned gate
// (docs/reference/keystoneapplicationcredential.md, "Consent").
func (g Gate) Frozen() bool { return g.Reason == c5c3v1alpha1.ReasonNamespaceNotAssigned }
