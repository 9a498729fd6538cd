//go:build integration

package topology

import "github.com/c5c3/orderhub/internal/oshref"

// oracleKnown lists the deliberate differences between orderhub and
// OpenStack-Helm's Python controller on the oracle corpus: each exactly (key,
// the Python controller's value, orderhub's value), with its row in
// docs/topology.md, "The OpenStack-Helm Python controller as an oracle".
var oracleKnown = []oshref.Known{
	known("applied/user/app/hashing_algorithm", `"rabbit_password_hashing_sha256"`, `"rabbit_password_hashing_sha512"`, docPasswordHash),
	known("applied/user/gen/hashing_algorithm", `"rabbit_password_hashing_sha256"`, `"rabbit_password_hashing_sha512"`, docPasswordHash),
	known("applied/user/keep/hashing_algorithm", `"rabbit_password_hashing_sha256"`, `"rabbit_password_hashing_sha512"`, docPasswordHash),
	known("deleted/user/keep/hashing_algorithm", `"rabbit_password_hashing_sha256"`, `"rabbit_password_hashing_sha512"`, docPasswordHash),
	known("applied/user/gen/username", `"<the User's name>"`, `"<random>"`, docGeneratedUsername),
	known("applied/queue/vh/q-typearg", `{"arguments":{"x-queue-type":"classic"},"auto_delete":false,"durable":true,"type":"classic"}`,
		`{"arguments":{"x-queue-type":"quorum"},"auto_delete":false,"durable":true,"type":"quorum"}`, docTypeArgument),
	known("applied/observed_generation_current/Queue/clash", `true`, `false`, docObservedGeneration),
}

const (
	docPasswordHash       = "docs/topology.md oracle: password hash"
	docGeneratedUsername  = "docs/topology.md oracle: generated username"
	docTypeArgument       = "docs/topology.md oracle: spec.type against x-queue-type"
	docObservedGeneration = "docs/topology.md oracle: observedGeneration on a failure"
)

func known(key, oracle, orderhub, doc string) oshref.Known {
	return oshref.Known{Diff: oshref.Diff{Key: key, Want: oracle, Got: orderhub}, Doc: doc}
}
