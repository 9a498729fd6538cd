package identity

import (
	"context"

	kv1 "github.com/c5c3/orderhub/api/keystone/v1alpha1"
)

// serviceProviderActuator reconciles ServiceProvider:
// PUT|GET|PATCH|DELETE /v3/OS-FEDERATION/service_providers/{id}
// (applyFederated).
type serviceProviderActuator struct {
	lookups
	specKind[*kv1.ServiceProvider]
}

var _ actuator[*kv1.ServiceProvider] = serviceProviderActuator{}

// keystoneSP is a service provider as Keystone returns it.
type keystoneSP struct {
	AuthURL          string `json:"auth_url"`
	SPURL            string `json:"sp_url"`
	Description      string `json:"description"`
	Enabled          bool   `json:"enabled"`
	RelayStatePrefix string `json:"relay_state_prefix"`
}

func (a serviceProviderActuator) api() fedAPI { return fedAPI{c: a.c, member: "service_provider"} }

func (a serviceProviderActuator) apply(ctx context.Context, o *kv1.ServiceProvider, in applyInput) (outcome, error) {
	s, id := o.Spec, o.KeystoneID()
	return applyFederated(ctx, fedObject(a.api(), "service provider "+id, spCreateBody(s),
		func(k keystoneSP) (map[string]any, []string, error) {
			b, fields := spDiff(s, k)
			return b, fields, nil
		},
		"service_providers", id), in.resync)
}

func (a serviceProviderActuator) remove(ctx context.Context, o *kv1.ServiceProvider) error {
	return a.api().remove(ctx, "service provider "+o.KeystoneID(), "service_providers", o.KeystoneID())
}

// spCreateBody is the PUT body of s.
func spCreateBody(s kv1.ServiceProviderSpec) map[string]any {
	b := map[string]any{"auth_url": s.AuthURL, "sp_url": s.SPURL, "enabled": enabled(s.Enabled)}
	if s.Description != "" {
		b["description"] = s.Description
	}
	if s.RelayStatePrefix != "" {
		b["relay_state_prefix"] = s.RelayStatePrefix
	}
	return b
}

// spDiff is the PATCH body that makes k match s, and its field names
// sorted; an empty description or relayStatePrefix is not compared.
func spDiff(s kv1.ServiceProviderSpec, k keystoneSP) (map[string]any, []string) {
	b := map[string]any{}
	var fields []string
	add := func(field string, v any) { b[field], fields = v, append(fields, field) }
	if s.AuthURL != k.AuthURL {
		add("auth_url", s.AuthURL)
	}
	if s.Description != "" && s.Description != k.Description {
		add("description", s.Description)
	}
	if v := enabled(s.Enabled); v != k.Enabled {
		add("enabled", v)
	}
	if s.RelayStatePrefix != "" && s.RelayStatePrefix != k.RelayStatePrefix {
		add("relay_state_prefix", s.RelayStatePrefix)
	}
	if s.SPURL != k.SPURL {
		add("sp_url", s.SPURL)
	}
	return b, fields
}
