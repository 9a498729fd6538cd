package eso

import (
	"errors"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// PushSecret deletion and update policies orderhub sets.
const (
	// DeletionPolicyDelete removes the pushed properties from the provider
	// when the PushSecret is deleted (docs/reference/keystoneservice.md,
	// "Deletion Semantics": "OpenBao credential path: Deleted with the
	// PushSecret that owns it").
	DeletionPolicyDelete = "Delete"
	// UpdatePolicyReplace overwrites the provider's value on every push.
	UpdatePolicyReplace = "Replace"
)

// PushData pushes one key of the source Secret to one property of a KV v2
// path.
type PushData struct {
	// SecretKey is the key of the source Secret.
	SecretKey string
	// RemoteKey is the KV v2 path below the store's mount (see
	// openbao.ServiceAccountCredentialsPath).
	RemoteKey string
	// Property is the KV v2 data key the value is written to.
	Property string
}

// PushSecret describes a PushSecret that pushes keys of one source Secret
// through one SecretStore, with deletionPolicy Delete and updatePolicy
// Replace.
type PushSecret struct {
	Name        string
	Namespace   string
	Labels      map[string]string
	Annotations map[string]string
	// StoreName is the SecretStore (or ClusterSecretStore, see StoreKind).
	StoreName string
	// StoreKind is KindSecretStore (default) or KindClusterSecretStore.
	StoreKind string
	// SourceSecretName is the Secret in Namespace whose keys are pushed.
	SourceSecretName string
	// RefreshInterval re-pushes periodically; zero means 1h. The hub does not
	// rely on it: it forces a push by changing an annotation.
	RefreshInterval time.Duration
	// Data lists the pushed keys; at least one.
	Data []PushData
}

// DefaultRefreshInterval is the refresh interval of built PushSecrets and
// ExternalSecrets when none is given.
const DefaultRefreshInterval = time.Hour

// Build returns the PushSecret object. It fails when a required field is
// empty or Data has an entry without SecretKey, RemoteKey or Property.
func (p PushSecret) Build() (*unstructured.Unstructured, error) {
	if p.Name == "" || p.Namespace == "" || p.StoreName == "" || p.SourceSecretName == "" || len(p.Data) == 0 {
		return nil, errors.New("eso: PushSecret needs name, namespace, store, source secret and data")
	}
	data := make([]any, 0, len(p.Data))
	for _, d := range p.Data {
		if d.SecretKey == "" || d.RemoteKey == "" || d.Property == "" {
			return nil, errors.New("eso: PushSecret data needs secretKey, remoteKey and property")
		}
		data = append(data, map[string]any{"match": map[string]any{
			"secretKey": d.SecretKey,
			"remoteRef": map[string]any{"remoteKey": d.RemoteKey, "property": d.Property},
		}})
	}
	u := object(PushSecretGVK, p.Namespace, p.Name, p.Labels, p.Annotations)
	u.Object["spec"] = map[string]any{
		"refreshInterval": duration(p.RefreshInterval),
		"deletionPolicy":  DeletionPolicyDelete,
		"updatePolicy":    UpdatePolicyReplace,
		"secretStoreRefs": []any{map[string]any{"name": p.StoreName, "kind": storeKind(p.StoreKind)}},
		"selector":        map[string]any{"secret": map[string]any{"name": p.SourceSecretName}},
		"data":            data,
	}
	return u, nil
}

func storeKind(k string) string {
	if k == "" {
		return KindSecretStore
	}
	return k
}

func duration(d time.Duration) string {
	if d <= 0 {
		d = DefaultRefreshInterval
	}
	return d.String()
}
