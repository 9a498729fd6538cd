package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// leaderElectionID is the name of the leader election Lease of the
// subcommand name (docs/identity.md and docs/topology.md, "Running it").
// flagValue (--leader-election-id) wins when set; it must be a valid Lease
// name (a DNS-1123 subdomain). Otherwise the name is orderhub-<name>, followed
// for a subcommand that serves one backend (identity: a Keystone; topology: a
// broker) by the first 10 hex digits of the SHA-256 of target, the values
// that tell one instance from another (namespace, backend URL, reference
// name). So replicas of one install share one Lease, and a second install
// for another Keystone or broker in the same namespace elects its own leader
// instead of waiting behind the first one's.
func leaderElectionID(name, flagValue string, target []string) (string, error) {
	if flagValue != "" {
		if errs := validation.IsDNS1123Subdomain(flagValue); len(errs) > 0 {
			return "", fmt.Errorf("--leader-election-id=%q is not a valid Lease name: %s", flagValue, strings.Join(errs, "; "))
		}
		return flagValue, nil
	}
	if len(target) == 0 {
		return "orderhub-" + name, nil
	}
	sum := sha256.Sum256([]byte(strings.Join(target, "\x00")))
	return "orderhub-" + name + "-" + hex.EncodeToString(sum[:])[:10], nil
}
