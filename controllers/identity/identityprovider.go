package identity

import (
	"context"
	"fmt"
	"slices"

	kv1 "github.com/c5c3/orderhub/api/keystone/v1alpha1"
)

// identityProviderActuator reconciles IdentityProvider:
// PUT|GET|PATCH|DELETE /v3/OS-FEDERATION/identity_providers/{id}
// (applyFederated).
type identityProviderActuator struct {
	lookups
	specKind[*kv1.IdentityProvider]
}

var _ actuator[*kv1.IdentityProvider] = identityProviderActuator{}

// keystoneIDP is an identity provider as Keystone returns it.
type keystoneIDP struct {
	Description      string   `json:"description"`
	DomainID         string   `json:"domain_id"`
	Enabled          bool     `json:"enabled"`
	RemoteIDs        []string `json:"remote_ids"`
	AuthorizationTTL *int32   `json:"authorization_ttl"`
}

func (a identityProviderActuator) api() fedAPI { return fedAPI{c: a.c, member: "identity_provider"} }

func (a identityProviderActuator) apply(ctx context.Context, o *kv1.IdentityProvider, in applyInput) (outcome, error) {
	s, id := o.Spec, o.KeystoneID()
	did := ""
	if s.Domain != "" {
		var err error
		if did, err = a.domainID(ctx, s.Domain); err != nil {
			return outcome{}, err
		}
	}
	what := "identity provider " + id
	return applyFederated(ctx, fedObject(a.api(), what, idpCreateBody(s, did),
		func(k keystoneIDP) (map[string]any, []string, error) { return idpDiff(what, s, did, k) },
		"identity_providers", id), in.resync)
}

func (a identityProviderActuator) remove(ctx context.Context, o *kv1.IdentityProvider) error {
	return a.api().remove(ctx, "identity provider "+o.KeystoneID(), "identity_providers", o.KeystoneID())
}

// idpCreateBody is the PUT body of s; did is the ID of spec.domain ("" lets
// Keystone create a domain).
func idpCreateBody(s kv1.IdentityProviderSpec, did string) map[string]any {
	b := map[string]any{"enabled": enabled(s.Enabled)}
	if s.Description != "" {
		b["description"] = s.Description
	}
	if did != "" {
		b["domain_id"] = did
	}
	if len(s.RemoteIDs) > 0 {
		b["remote_ids"] = s.RemoteIDs
	}
	if s.AuthorizationTTL != nil {
		b["authorization_ttl"] = *s.AuthorizationTTL
	}
	return b
}

// idpDiff is the PATCH body that makes k match s, and its field names
// sorted. remote_ids compare as sets; an unset description or
// authorizationTTL is not compared. A domain that differs cannot be patched
// (Keystone fixes it at create): it is an error naming the remedy.
func idpDiff(what string, s kv1.IdentityProviderSpec, did string, k keystoneIDP) (map[string]any, []string, error) {
	if did != "" && did != k.DomainID {
		return nil, nil, fmt.Errorf("%s has domain ID %s in Keystone, spec.domain %q is %s; Keystone cannot move it: "+
			"delete the identity provider in Keystone to have it created again", what, k.DomainID, s.Domain, did)
	}
	b := map[string]any{}
	var fields []string
	if s.AuthorizationTTL != nil && (k.AuthorizationTTL == nil || *k.AuthorizationTTL != *s.AuthorizationTTL) {
		b["authorization_ttl"], fields = *s.AuthorizationTTL, append(fields, "authorization_ttl")
	}
	if s.Description != "" && s.Description != k.Description {
		b["description"], fields = s.Description, append(fields, "description")
	}
	if v := enabled(s.Enabled); v != k.Enabled {
		b["enabled"], fields = v, append(fields, "enabled")
	}
	if !sameSet(s.RemoteIDs, k.RemoteIDs) {
		b["remote_ids"], fields = nonNil(s.RemoteIDs), append(fields, "remote_ids")
	}
	return b, fields, nil
}

// sameSet reports whether a and b hold the same strings, in any order.
func sameSet(a, b []string) bool {
	x, y := slices.Clone(a), slices.Clone(b)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(slices.Compact(x), slices.Compact(y))
}

// nonNil is s, or an empty list for nil (JSON [] rather than null).
func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
