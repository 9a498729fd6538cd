package identity

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/federation"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	kv1 "github.com/c5c3/orderhub/api/keystone/v1alpha1"
	"github.com/c5c3/orderhub/internal/keystone"
)

// mappingActuator reconciles Mapping: PUT|GET|PATCH|DELETE
// /v3/OS-FEDERATION/mappings/{id} with gophercloud's federation package
// (applyFederated).
type mappingActuator struct {
	lookups
	specKind[*kv1.Mapping]
}

var _ actuator[*kv1.Mapping] = mappingActuator{}

// rawRules sends the spec's rules to Keystone as they are. gophercloud's
// CreateMappingOpts types the rules (federation.MappingRule), which would
// drop any field of Keystone's dialect its structs do not know; its Create
// and Update functions take any options builder, so this one carries the raw
// JSON.
type rawRules []apiextensionsv1.JSON

func (r rawRules) body() (map[string]any, error) {
	rules := make([]json.RawMessage, len(r))
	for i, j := range r {
		rules[i] = j.Raw
	}
	return map[string]any{"mapping": map[string]any{"rules": rules}}, nil
}

func (r rawRules) ToMappingCreateMap() (map[string]any, error) { return r.body() }
func (r rawRules) ToMappingUpdateMap() (map[string]any, error) { return r.body() }

func (a mappingActuator) apply(ctx context.Context, o *kv1.Mapping, in applyInput) (outcome, error) {
	id, rules := o.KeystoneID(), rawRules(o.Spec.Rules)
	return applyFederated(ctx, fedKind[json.RawMessage]{
		what:   "mapping " + id,
		create: func(ctx context.Context) error { return federation.CreateMapping(ctx, a.c, id, rules).Err },
		get: func(ctx context.Context) (json.RawMessage, bool, error) {
			var m struct {
				Mapping struct {
					Rules json.RawMessage `json:"rules"`
				} `json:"mapping"`
			}
			err := federation.GetMapping(ctx, a.c, id).ExtractInto(&m)
			if keystone.IsNotFound(err) {
				return nil, false, nil
			}
			return m.Mapping.Rules, err == nil, err
		},
		diff: func(observed json.RawMessage) (map[string]any, []string, error) {
			same, err := sameRules(o.Spec.Rules, observed)
			if err != nil || same {
				return nil, nil, err
			}
			return map[string]any{"rules": nil}, []string{"rules"}, nil
		},
		update: func(ctx context.Context, _ map[string]any) error {
			return federation.UpdateMapping(ctx, a.c, id, rules).Err
		},
	}, in.resync)
}

func (a mappingActuator) remove(ctx context.Context, o *kv1.Mapping) error {
	if err := federation.DeleteMapping(ctx, a.c, o.KeystoneID()).ExtractErr(); err != nil && !keystone.IsNotFound(err) {
		return fmt.Errorf("delete mapping %s: %w", o.KeystoneID(), err)
	}
	return nil
}

// sameRules reports whether the spec's rules and the rules Keystone returns
// are the same JSON values (key order and spacing aside).
func sameRules(spec []apiextensionsv1.JSON, observed json.RawMessage) (bool, error) {
	want := make([]any, len(spec))
	for i, j := range spec {
		if err := json.Unmarshal(j.Raw, &want[i]); err != nil {
			return false, fmt.Errorf("spec.rules[%d]: %w", i, err)
		}
	}
	var got []any
	if err := json.Unmarshal(observed, &got); err != nil {
		return false, fmt.Errorf("decode the mapping rules Keystone returned: %w", err)
	}
	return reflect.DeepEqual(want, got), nil
}
