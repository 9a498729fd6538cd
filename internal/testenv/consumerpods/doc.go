// Package consumerpods runs credential consumers as pods on the local
// stack's node (testenv.Options.Node): authloop (./authloop) built into an
// image, a Deployment of it reading a delivered Secret, and the Sink its
// pods report their token requests to. Used by tests/consumers and
// hack/soak (docs/reference/consumers.md, "What the pod test shows").
package consumerpods
