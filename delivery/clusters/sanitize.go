package clusters

import (
	"errors"
	"fmt"
	"net/url"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// ErrKubeconfigRefused is wrapped by SanitizeKubeconfig's error when a
// registration kubeconfig carries anything but what the hub accepts
// (docs/hub.md, "Target clusters"): an https server URL, inline CA data, and
// an inline bearer token or an inline client certificate and key.
var ErrKubeconfigRefused = errors.New("registration kubeconfig refused")

// RefusedField is SanitizeKubeconfig's error: Field is the kubeconfig field
// (its YAML path in the current context's cluster or user) that refused the
// registration. It wraps ErrKubeconfigRefused.
type RefusedField struct {
	Field  string
	Reason string
}

func (e *RefusedField) Error() string {
	return fmt.Sprintf("%v: field %s %s; register a kubeconfig with only server (https), "+
		"certificate-authority-data, and token or client-certificate-data with client-key-data (docs/hub.md, \"Target clusters\")",
		ErrKubeconfigRefused, e.Field, e.Reason)
}

func (e *RefusedField) Unwrap() error { return ErrKubeconfigRefused }

// fieldCheck names a kubeconfig field and reports whether it is set.
type fieldCheck[T any] struct {
	field string
	set   func(T) bool
}

// refusedClusterFields are the cluster fields that point the hub's
// connection anywhere but the verified server: files read from the hub's
// filesystem, TLS verification off, a proxy.
var refusedClusterFields = []fieldCheck[*clientcmdapi.Cluster]{
	{"certificate-authority", func(c *clientcmdapi.Cluster) bool { return c.CertificateAuthority != "" }},
	{"insecure-skip-tls-verify", func(c *clientcmdapi.Cluster) bool { return c.InsecureSkipTLSVerify }},
	{"proxy-url", func(c *clientcmdapi.Cluster) bool { return c.ProxyURL != "" }},
	{"tls-server-name", func(c *clientcmdapi.Cluster) bool { return c.TLSServerName != "" }},
}

// refusedUserFields are the user fields other than an inline token or
// inline client certificate: plugins the hub would run, files it would read
// (its own ServiceAccount token among them), basic auth and impersonation.
var refusedUserFields = []fieldCheck[*clientcmdapi.AuthInfo]{
	{"exec", func(u *clientcmdapi.AuthInfo) bool { return u.Exec != nil }},
	{"auth-provider", func(u *clientcmdapi.AuthInfo) bool { return u.AuthProvider != nil }},
	{"tokenFile", func(u *clientcmdapi.AuthInfo) bool { return u.TokenFile != "" }},
	{"client-certificate", func(u *clientcmdapi.AuthInfo) bool { return u.ClientCertificate != "" }},
	{"client-key", func(u *clientcmdapi.AuthInfo) bool { return u.ClientKey != "" }},
	{"username", func(u *clientcmdapi.AuthInfo) bool { return u.Username != "" }},
	{"password", func(u *clientcmdapi.AuthInfo) bool { return u.Password != "" }},
	{"as", func(u *clientcmdapi.AuthInfo) bool { return u.Impersonate != "" }},
	{"as-uid", func(u *clientcmdapi.AuthInfo) bool { return u.ImpersonateUID != "" }},
	{"as-groups", func(u *clientcmdapi.AuthInfo) bool { return len(u.ImpersonateGroups) > 0 }},
	{"as-user-extra", func(u *clientcmdapi.AuthInfo) bool { return len(u.ImpersonateUserExtra) > 0 }},
}

// SanitizeKubeconfig checks the registration kubeconfig data before the hub
// builds a client from it. Pure. Errors: data not a kubeconfig, or no current
// context, cluster or user (a plain error); a refused field of the current
// context's cluster or user, or a server that is not https, a *RefusedField.
func SanitizeKubeconfig(data []byte) error {
	cfg, err := clientcmd.Load(data)
	if err != nil {
		return fmt.Errorf("%w: not a kubeconfig: %v", ErrKubeconfigRefused, err)
	}
	kctx, ok := cfg.Contexts[cfg.CurrentContext]
	if !ok {
		return &RefusedField{Field: "current-context", Reason: fmt.Sprintf("names no context (%q)", cfg.CurrentContext)}
	}
	cl, ok := cfg.Clusters[kctx.Cluster]
	if !ok {
		return &RefusedField{Field: "contexts[" + cfg.CurrentContext + "].cluster", Reason: "names no cluster"}
	}
	if err := checkCluster(kctx.Cluster, cl); err != nil {
		return err
	}
	user, ok := cfg.AuthInfos[kctx.AuthInfo]
	if !ok {
		return &RefusedField{Field: "contexts[" + cfg.CurrentContext + "].user", Reason: "names no user"}
	}
	for _, c := range refusedUserFields {
		if c.set(user) {
			return &RefusedField{Field: "users[" + kctx.AuthInfo + "].user." + c.field, Reason: "is not accepted"}
		}
	}
	return nil
}

// checkCluster refuses a cluster entry with a refused field or a server URL
// that is not https with a host.
func checkCluster(name string, cl *clientcmdapi.Cluster) error {
	for _, c := range refusedClusterFields {
		if c.set(cl) {
			return &RefusedField{Field: "clusters[" + name + "].cluster." + c.field, Reason: "is not accepted"}
		}
	}
	u, err := url.Parse(cl.Server)
	if err != nil || u.Scheme != "https" || u.Host == "" {
		return &RefusedField{Field: "clusters[" + name + "].cluster.server", Reason: fmt.Sprintf("%q is not an https URL", cl.Server)}
	}
	return nil
}
