package eso

import (
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// VaultKVVersion2 is the provider's KV engine version orderhub uses.
const VaultKVVersion2 = "v2"

// SecretStore describes a namespaced SecretStore with the Vault provider
// against OpenBao: KV v2 at Mount, token auth read from a Secret in the
// store's namespace.
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
	// TokenSecretName and TokenSecretKey name the Secret key holding the token.
	TokenSecretName string
	TokenSecretKey  string
	// CABundle is a PEM bundle to verify an https Server with; optional.
	CABundle []byte
}

// Build returns the SecretStore object. It fails when a required field
// (Name, Namespace, Server, Mount, TokenSecretName, TokenSecretKey) is empty
// or Server is not an http(s) URL.
func (s SecretStore) Build() (*unstructured.Unstructured, error) {
	if s.Name == "" || s.Namespace == "" || s.Mount == "" || s.TokenSecretName == "" || s.TokenSecretKey == "" {
		return nil, errors.New("eso: SecretStore needs name, namespace, mount and token secret name and key")
	}
	if u, err := url.Parse(s.Server); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("eso: SecretStore server %q is not an http(s) URL", s.Server)
	}
	vault := map[string]any{
		"server":  s.Server,
		"path":    s.Mount,
		"version": VaultKVVersion2,
		"auth": map[string]any{"tokenSecretRef": map[string]any{
			"name": s.TokenSecretName, "key": s.TokenSecretKey}},
	}
	if s.VaultNamespace != "" {
		vault["namespace"] = s.VaultNamespace
	}
	if len(s.CABundle) > 0 {
		vault["caBundle"] = base64.StdEncoding.EncodeToString(s.CABundle)
	}
	u := New(SecretStoreGVK)
	u.SetName(s.Name)
	u.SetNamespace(s.Namespace)
	setIf(s.Labels, u.SetLabels)
	u.Object["spec"] = map[string]any{"provider": map[string]any{"vault": vault}}
	return u, nil
}

// setIf calls set with m when m is not empty.
func setIf(m map[string]string, set func(map[string]string)) {
	if len(m) > 0 {
		set(m)
	}
}
