package testenv

import (
	"context"
	"fmt"
	"os"
	"strings"

	bao "github.com/openbao/openbao/api/v2"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/c5c3/orderhub/delivery/openbao"
)

// The tenant auth of the stack's OpenBao-compatible server, set up as
// docs/reference/openbao.md tells an operator to: OpenBao's Kubernetes auth
// method at TenantAuthMount with the stack's kube-apiserver as token
// reviewer, the templated policy TenantPolicyName (openbao.TenantPolicy) and
// the role TenantRole binding ServiceAccount TenantServiceAccount in any
// namespace. The names equal the hub's defaults
// (controlplane.DefaultOpenBaoAuthMount, DefaultOpenBaoRole,
// DefaultOpenBaoServiceAccount); testenv cannot import controlplane.
const (
	TenantAuthMount      = "kubernetes"
	TenantRole           = "eso-tenant"
	TenantServiceAccount = "eso-tenant-auth"
	TenantPolicyName     = "orderhub-tenant"
	// ReviewerNamespace and ReviewerServiceAccount hold the identity OpenBao
	// reviews tokens with (bound to ClusterRole system:auth-delegator).
	ReviewerNamespace      = "openbao-system"
	ReviewerServiceAccount = "openbao-token-reviewer"
	// reviewerTokenSeconds is the reviewer token's lifetime: longer than any
	// stack lives.
	reviewerTokenSeconds = 7 * 24 * 3600
)

// configureTenantAuth sets up the tenant auth on the stack's OpenBao against
// its kube-apiserver. Both must be running.
func (s *Stack) configureTenantAuth(ctx context.Context) error {
	cs, err := kubernetes.NewForConfig(s.Kube.Config)
	if err != nil {
		return err
	}
	jwt, err := reviewerToken(ctx, cs)
	if err != nil {
		return err
	}
	ca, err := os.ReadFile(s.Kube.CAFile)
	if err != nil {
		return err
	}
	c, err := s.rootClient()
	if err != nil {
		return err
	}
	if err := c.Sys().EnableAuthWithOptionsWithContext(ctx, TenantAuthMount, &bao.EnableAuthOptions{Type: "kubernetes"}); err != nil {
		return fmt.Errorf("enable the kubernetes auth method: %w", err)
	}
	auths, err := c.Sys().ListAuthWithContext(ctx)
	if err != nil {
		return fmt.Errorf("list auth methods: %w", err)
	}
	m := auths[TenantAuthMount+"/"]
	if m == nil || m.Accessor == "" {
		return fmt.Errorf("auth method %s/ has no accessor", TenantAuthMount)
	}
	if _, err := c.Logical().WriteWithContext(ctx, "auth/"+TenantAuthMount+"/config", map[string]any{
		"kubernetes_host":      s.Kube.URL,
		"kubernetes_ca_cert":   string(ca),
		"token_reviewer_jwt":   jwt,
		"disable_local_ca_jwt": true,
	}); err != nil {
		return fmt.Errorf("configure the kubernetes auth method: %w", err)
	}
	if err := c.Sys().PutPolicyWithContext(ctx, TenantPolicyName, openbao.TenantPolicy(s.OpenBao.KVMount, m.Accessor)); err != nil {
		return fmt.Errorf("write policy %s: %w", TenantPolicyName, err)
	}
	s.OpenBao.AuthMount, s.OpenBao.AuthAccessor = TenantAuthMount, m.Accessor
	s.OpenBao.Role, s.OpenBao.ServiceAccount = TenantRole, TenantServiceAccount
	return s.SetTenantRolePolicies(ctx, TenantPolicyName)
}

// SetTenantRolePolicies (re)writes the tenant role with policies as its
// token policies (and no default policy). Tests break every store's access
// with a policy that grants nothing and restore it with TenantPolicyName.
func (s *Stack) SetTenantRolePolicies(ctx context.Context, policies ...string) error {
	c, err := s.rootClient()
	if err != nil {
		return err
	}
	if _, err := c.Logical().WriteWithContext(ctx, "auth/"+TenantAuthMount+"/role/"+TenantRole, map[string]any{
		"bound_service_account_names":      []string{TenantServiceAccount},
		"bound_service_account_namespaces": []string{"*"},
		"token_policies":                   strings.Join(policies, ","),
		"token_no_default_policy":          true,
		"token_ttl":                        "20m",
	}); err != nil {
		return fmt.Errorf("write role %s: %w", TenantRole, err)
	}
	return nil
}

// rootClient is an OpenBao client with the stack's root token.
func (s *Stack) rootClient() (*bao.Client, error) {
	if s.OpenBao == nil {
		return nil, fmt.Errorf("testenv: the stack runs no OpenBao-compatible server")
	}
	return openbao.NewClient(openbao.Config{Address: s.OpenBao.Addr, Token: s.OpenBao.Token})
}

// reviewerToken creates the reviewer ServiceAccount, binds it to
// system:auth-delegator (TokenReview) and requests a token for it.
func reviewerToken(ctx context.Context, cs kubernetes.Interface) (string, error) {
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ReviewerNamespace}},
		metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return "", err
	}
	if _, err := cs.CoreV1().ServiceAccounts(ReviewerNamespace).Create(ctx, &corev1.ServiceAccount{
		ObjectMeta: metav1.ObjectMeta{Name: ReviewerServiceAccount}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return "", err
	}
	if _, err := cs.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: ReviewerServiceAccount},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "system:auth-delegator"},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: ReviewerServiceAccount, Namespace: ReviewerNamespace}},
	}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return "", err
	}
	exp := int64(reviewerTokenSeconds)
	tr, err := cs.CoreV1().ServiceAccounts(ReviewerNamespace).CreateToken(ctx, ReviewerServiceAccount,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &exp}}, metav1.CreateOptions{})
	if err != nil {
		return "", fmt.Errorf("request the reviewer token: %w", err)
	}
	return tr.Status.Token, nil
}
