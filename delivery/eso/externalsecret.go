package eso

import (
	"errors"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// CreationPolicyOwner makes the ExternalSecret the controller owner of the
// Secret it creates, so the Secret is garbage-collected with it
// (docs/reference/keystoneservice.md, "Consumer Secret contract": "Ownership:
// ESO, with CreationPolicy: Owner").
const CreationPolicyOwner = "Owner"

// ExternalData fetches one property of a KV v2 path into one key of the
// delivered Secret.
type ExternalData struct {
	// SecretKey is the key in the delivered Secret.
	SecretKey string
	// RemoteKey is the KV v2 path below the store's mount.
	RemoteKey string
	// Property is the KV v2 data key read.
	Property string
}

// Template sets metadata and type on the delivered Secret. Its data is the
// fetched data unchanged (ESO copies the fetched keys when a template has no
// data templates).
type Template struct {
	// Type is the Secret type; empty means Opaque.
	Type        string
	Labels      map[string]string
	Annotations map[string]string
}

// ExternalSecret describes an ExternalSecret delivering a Secret owned by it
// (creationPolicy Owner) from one SecretStore.
type ExternalSecret struct {
	Name        string
	Namespace   string
	Labels      map[string]string
	Annotations map[string]string
	// StoreName is the SecretStore (or ClusterSecretStore, see StoreKind).
	StoreName string
	// StoreKind is KindSecretStore (default) or KindClusterSecretStore.
	StoreKind string
	// TargetName is the delivered Secret's name, e.g. <name>-credentials.
	TargetName string
	// RefreshInterval re-fetches periodically; zero means 1h.
	RefreshInterval time.Duration
	// Data lists the delivered keys; at least one.
	Data []ExternalData
	// Template, when set, adds labels, annotations or a type to the Secret.
	Template *Template
}

// Build returns the ExternalSecret object. It fails when a required field is
// empty or Data has an entry without SecretKey, RemoteKey or Property.
func (e ExternalSecret) Build() (*unstructured.Unstructured, error) {
	if e.Name == "" || e.Namespace == "" || e.StoreName == "" || e.TargetName == "" || len(e.Data) == 0 {
		return nil, errors.New("eso: ExternalSecret needs name, namespace, store, target name and data")
	}
	data := make([]any, 0, len(e.Data))
	for _, d := range e.Data {
		if d.SecretKey == "" || d.RemoteKey == "" || d.Property == "" {
			return nil, errors.New("eso: ExternalSecret data needs secretKey, remoteKey and property")
		}
		data = append(data, map[string]any{"secretKey": d.SecretKey,
			"remoteRef": map[string]any{"key": d.RemoteKey, "property": d.Property}})
	}
	target := map[string]any{"name": e.TargetName, "creationPolicy": CreationPolicyOwner}
	if t := e.Template; t != nil {
		tm := map[string]any{"engineVersion": "v2"}
		if t.Type != "" {
			tm["type"] = t.Type
		}
		md := map[string]any{}
		if len(t.Labels) > 0 {
			md["labels"] = anyMap(t.Labels)
		}
		if len(t.Annotations) > 0 {
			md["annotations"] = anyMap(t.Annotations)
		}
		if len(md) > 0 {
			tm["metadata"] = md
		}
		target["template"] = tm
	}
	u := object(ExternalSecretGVK, e.Namespace, e.Name, e.Labels, e.Annotations)
	u.Object["spec"] = map[string]any{
		"refreshInterval": duration(e.RefreshInterval),
		"secretStoreRef":  map[string]any{"name": e.StoreName, "kind": storeKind(e.StoreKind)},
		"target":          target,
		"data":            data,
	}
	return u, nil
}

func anyMap(m map[string]string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
