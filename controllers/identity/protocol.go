package identity

import (
	"context"
	"fmt"
	"net/http"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/federation"

	kv1 "github.com/c5c3/orderhub/api/keystone/v1alpha1"
	"github.com/c5c3/orderhub/internal/keystone"
)

// protocolActuator reconciles Protocol: PUT|GET|PATCH|DELETE
// /v3/OS-FEDERATION/identity_providers/{idp}/protocols/{id}
// (applyFederated). A missing identity provider or mapping is a
// *missingError naming it.
type protocolActuator struct {
	lookups
	specKind[*kv1.Protocol]
}

var _ actuator[*kv1.Protocol] = protocolActuator{}

// keystoneProtocol is a protocol as Keystone returns it. Keystone stores
// remote_id_attribute but returns it only from release 2023.1 on
// (_public_parameters of keystone/api/os_federation.py); nil when absent.
type keystoneProtocol struct {
	MappingID         string  `json:"mapping_id"`
	RemoteIDAttribute *string `json:"remote_id_attribute"`
}

func (a protocolActuator) api() fedAPI { return fedAPI{c: a.c, member: "protocol"} }

func (a protocolActuator) apply(ctx context.Context, o *kv1.Protocol, in applyInput) (outcome, error) {
	s, id := o.Spec, o.KeystoneID()
	fk := fedObject(a.api(), fmt.Sprintf("protocol %s of identity provider %s", id, s.IdentityProvider), protocolBody(s),
		func(k keystoneProtocol) (map[string]any, []string, error) {
			b, fields := protocolDiff(s, k, in.resync)
			return b, fields, nil
		},
		"identity_providers", s.IdentityProvider, "protocols", id)
	// A missing identity provider or mapping fails the PUT or PATCH.
	put, update := fk.create, fk.update
	fk.create = func(ctx context.Context) error { return a.dependencies(ctx, s, put(ctx)) }
	fk.update = func(ctx context.Context, b map[string]any) error { return a.dependencies(ctx, s, update(ctx, b)) }
	return applyFederated(ctx, fk, in.resync)
}

// dependencies maps the error of a PUT or PATCH to a *missingError when a
// dependency is absent: Keystone answers 404 for a missing identity
// provider and 400 for a missing mapping, which is then confirmed with a
// GET of the mapping. Other errors pass unchanged.
func (a protocolActuator) dependencies(ctx context.Context, s kv1.ProtocolSpec, err error) error {
	switch {
	case err == nil:
		return nil
	case keystone.IsNotFound(err):
		return &missingError{"identity provider", fmt.Sprintf("%q", s.IdentityProvider)}
	case gophercloud.ResponseCodeIs(err, http.StatusBadRequest):
		if gerr := federation.GetMapping(ctx, a.c, s.Mapping).Err; keystone.IsNotFound(gerr) {
			return &missingError{"mapping", fmt.Sprintf("%q", s.Mapping)}
		}
	}
	return err
}

func (a protocolActuator) remove(ctx context.Context, o *kv1.Protocol) error {
	id := o.KeystoneID()
	return a.api().remove(ctx, fmt.Sprintf("protocol %s of identity provider %s", id, o.Spec.IdentityProvider),
		"identity_providers", o.Spec.IdentityProvider, "protocols", id)
}

// protocolBody is the PUT body of s.
func protocolBody(s kv1.ProtocolSpec) map[string]any {
	b := map[string]any{"mapping_id": s.Mapping}
	if s.RemoteIDAttribute != "" {
		b["remote_id_attribute"] = s.RemoteIDAttribute
	}
	return b
}

// protocolDiff is the PATCH body that makes k match s, and its field names
// sorted. An unset remoteIDAttribute is not compared; one Keystone does not
// return is sent when the spec is new or changed (not on a resync), so an
// edit is applied but drift of it is not seen.
func protocolDiff(s kv1.ProtocolSpec, k keystoneProtocol, resync bool) (map[string]any, []string) {
	b := map[string]any{}
	var fields []string
	if s.Mapping != k.MappingID {
		b["mapping_id"], fields = s.Mapping, append(fields, "mapping_id")
	}
	unseen := k.RemoteIDAttribute == nil && !resync
	if s.RemoteIDAttribute != "" && (unseen || k.RemoteIDAttribute != nil && s.RemoteIDAttribute != *k.RemoteIDAttribute) {
		b["remote_id_attribute"], fields = s.RemoteIDAttribute, append(fields, "remote_id_attribute")
	}
	return b, fields
}
