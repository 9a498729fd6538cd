package eso

import (
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// VaultKVVersion2 is the provider's KV engine version orderhub uses.
const VaultKVVersion2 = "v2"

// SecretStore describes a namespaced SecretStore with the Vault provider
// against OpenBao: KV v2 at Mount, authenticated either with OpenBao's
// Kubernetes auth method (Kubernetes, what the hub provisions) or with a
// token read from a Secret in the store's namespace (TokenSecretName; tests
// and hand-made stores only). Exactly one of the two is set.
type SecretStore struct {
	Name      string
	Namespace string
	Labels    map[string]string
	// Server is the OpenBao URL (http or https).
	Server string
	// Mount is the KV v2 mount path, e.g. kv-v2 or secret.
	Mount string
	// VaultNamespace is the OpenBao namespace; empty for the root namespace.
	VaultNamespace string
	// Kubernetes authenticates as a ServiceAccount of the store's namespace
	// (spec.provider.vault.auth.kubernetes).
	Kubernetes *KubernetesAuth
	// TokenSecretName and TokenSecretKey name the Secret key holding a token
	// (spec.provider.vault.auth.tokenSecretRef).
	TokenSecretName string
	TokenSecretKey  string
	// CABundle is a PEM bundle to verify an https Server with; optional.
	CABundle []byte
}

// KubernetesAuth is the Vault provider's Kubernetes auth: ESO requests a
// short-lived token for ServiceAccount (in the store's namespace) through
// the TokenRequest API and logs in with it at auth/<MountPath>/login as
// Role (https://external-secrets.io/v0.16.2/provider/hashicorp-vault/).
type KubernetesAuth struct {
	// MountPath is the auth method's mount, e.g. kubernetes.
	MountPath string
	// Role is the OpenBao role the ServiceAccount logs in as.
	Role string
	// ServiceAccount is the ServiceAccount's name.
	ServiceAccount string
}

// Build returns the SecretStore object. It fails when a required field
// (Name, Namespace, Server, Mount) is empty, Server is not an http(s) URL,
// or the auth is not exactly one complete Kubernetes or token auth.
func (s SecretStore) Build() (*unstructured.Unstructured, error) {
	if s.Name == "" || s.Namespace == "" || s.Mount == "" {
		return nil, errors.New("eso: SecretStore needs name, namespace and mount")
	}
	if u, err := url.Parse(s.Server); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("eso: SecretStore server %q is not an http(s) URL", s.Server)
	}
	auth, err := s.auth()
	if err != nil {
		return nil, err
	}
	vault := map[string]any{
		"server":  s.Server,
		"path":    s.Mount,
		"version": VaultKVVersion2,
		"auth":    auth,
	}
	if s.VaultNamespace != "" {
		vault["namespace"] = s.VaultNamespace
	}
	if len(s.CABundle) > 0 {
		vault["caBundle"] = base64.StdEncoding.EncodeToString(s.CABundle)
	}
	u := object(SecretStoreGVK, s.Namespace, s.Name, s.Labels, nil)
	u.Object["spec"] = map[string]any{"provider": map[string]any{"vault": vault}}
	return u, nil
}

func (s SecretStore) auth() (map[string]any, error) {
	token := s.TokenSecretName != "" || s.TokenSecretKey != ""
	switch {
	case s.Kubernetes != nil && token:
		return nil, errors.New("eso: SecretStore needs one auth, got both Kubernetes and token")
	case s.Kubernetes != nil:
		k := s.Kubernetes
		if k.MountPath == "" || k.Role == "" || k.ServiceAccount == "" {
			return nil, errors.New("eso: SecretStore Kubernetes auth needs mount path, role and service account")
		}
		return map[string]any{"kubernetes": map[string]any{
			"mountPath":         k.MountPath,
			"role":              k.Role,
			"serviceAccountRef": map[string]any{"name": k.ServiceAccount},
		}}, nil
	case s.TokenSecretName != "" && s.TokenSecretKey != "":
		return map[string]any{"tokenSecretRef": map[string]any{"name": s.TokenSecretName, "key": s.TokenSecretKey}}, nil
	default:
		return nil, errors.New("eso: SecretStore needs Kubernetes auth or a token secret name and key")
	}
}

// object is an empty object of gvk named namespace/name with labels and
// annotations, each set only when not empty.
func object(gvk schema.GroupVersionKind, namespace, name string, labels, annotations map[string]string) *unstructured.Unstructured {
	u := New(gvk)
	u.SetName(name)
	u.SetNamespace(namespace)
	if len(labels) > 0 {
		u.SetLabels(labels)
	}
	if len(annotations) > 0 {
		u.SetAnnotations(annotations)
	}
	return u
}
