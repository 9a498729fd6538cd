package webhooks

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
)

// Paths the webhook server serves; controller-runtime derives them from the
// GroupVersionKind ("/mutate-<group with dashes>-<version>-<kind lowercase>").
const (
	PathMutateKeystoneService   = "/mutate-c5c3-io-v1alpha1-keystoneservice"
	PathValidateKeystoneService = "/validate-c5c3-io-v1alpha1-keystoneservice"
	PathValidateControlPlane    = "/validate-c5c3-io-v1alpha1-controlplane"
)

// Names of the webhook configurations and of the webhooks in them.
const (
	MutatingConfigurationName   = "orderhub-hub-mutating"
	ValidatingConfigurationName = "orderhub-hub-validating"

	webhookMutateKeystoneService   = "mkeystoneservice.c5c3.io"
	webhookValidateKeystoneService = "vkeystoneservice.c5c3.io"
	webhookValidateControlPlane    = "vcontrolplane.c5c3.io"
)

// The markers below let `controller-gen webhook` render a Service-based
// configuration for in-cluster deployments (config/webhook); the local stack
// uses Configurations with a URL instead.
//
// +kubebuilder:webhook:path=/mutate-c5c3-io-v1alpha1-keystoneservice,mutating=true,failurePolicy=fail,sideEffects=None,groups=c5c3.io,resources=keystoneservices,verbs=create;update,versions=v1alpha1,name=mkeystoneservice.c5c3.io,admissionReviewVersions=v1,timeoutSeconds=5
// +kubebuilder:webhook:path=/validate-c5c3-io-v1alpha1-keystoneservice,mutating=false,failurePolicy=fail,sideEffects=None,groups=c5c3.io,resources=keystoneservices,verbs=create;update,versions=v1alpha1,name=vkeystoneservice.c5c3.io,admissionReviewVersions=v1,timeoutSeconds=5
// +kubebuilder:webhook:path=/validate-c5c3-io-v1alpha1-controlplane,mutating=false,failurePolicy=fail,sideEffects=None,groups=c5c3.io,resources=controlplanes,verbs=create;update,versions=v1alpha1,name=vcontrolplane.c5c3.io,admissionReviewVersions=v1,timeoutSeconds=5

// SetupWithManager registers the hub's webhooks on mgr's webhook server: the
// KeystoneService defaulter and validator, and the ControlPlane validator
// (reading through mgr.GetAPIReader()). The scheme must hold c5c3.io/v1alpha1.
func SetupWithManager(mgr ctrl.Manager) error {
	if err := ctrl.NewWebhookManagedBy(mgr, &c5c3v1alpha1.KeystoneService{}).
		WithDefaulter(KeystoneServiceDefaulter{}).
		WithValidator(KeystoneServiceValidator{}).
		Complete(); err != nil {
		return fmt.Errorf("KeystoneService webhooks: %w", err)
	}
	if err := ctrl.NewWebhookManagedBy(mgr, &c5c3v1alpha1.ControlPlane{}).
		WithValidator(ControlPlaneValidator{Reader: mgr.GetAPIReader()}).
		Complete(); err != nil {
		return fmt.Errorf("ControlPlane webhook: %w", err)
	}
	return nil
}

// SelfRegisteredTimeoutSeconds is the timeoutSeconds of the self-registered
// webhooks: a hub that stopped answering costs a write 5 seconds, not the API
// server's default of 10, before it is refused.
const SelfRegisteredTimeoutSeconds = 5

// Configurations renders the webhook configurations that point the API
// server at urlBase (e.g. https://127.0.0.1:9443, no trailing slash needed)
// and trust caBundle (PEM), with timeoutSeconds
// SelfRegisteredTimeoutSeconds. failurePolicy is Fail: with the webhook down,
// KeystoneService and ControlPlane creates and updates are refused (the API
// server's error names the webhook and the unreachable URL) rather than
// admitted unchecked (the CRD rules bind either way); deletes never call a
// webhook (docs/reference/keystoneservice.md, "orderhub: self-registered
// webhooks").
func Configurations(urlBase string, caBundle []byte) (*admissionregistrationv1.MutatingWebhookConfiguration, *admissionregistrationv1.ValidatingWebhookConfiguration) {
	base := strings.TrimRight(urlBase, "/")
	fail := admissionregistrationv1.Fail
	none := admissionregistrationv1.SideEffectClassNone
	timeout := int32(SelfRegisteredTimeoutSeconds)
	equivalent := admissionregistrationv1.Equivalent
	cc := func(path string) admissionregistrationv1.WebhookClientConfig {
		u := base + path
		return admissionregistrationv1.WebhookClientConfig{URL: &u, CABundle: caBundle}
	}
	rule := func(resource string, ops ...admissionregistrationv1.OperationType) []admissionregistrationv1.RuleWithOperations {
		return []admissionregistrationv1.RuleWithOperations{{
			Operations: ops,
			Rule: admissionregistrationv1.Rule{
				APIGroups:   []string{c5c3v1alpha1.GroupVersion.Group},
				APIVersions: []string{c5c3v1alpha1.GroupVersion.Version},
				Resources:   []string{resource},
			},
		}}
	}
	create, update := admissionregistrationv1.Create, admissionregistrationv1.Update
	mutating := &admissionregistrationv1.MutatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: MutatingConfigurationName},
		Webhooks: []admissionregistrationv1.MutatingWebhook{{
			Name:                    webhookMutateKeystoneService,
			ClientConfig:            cc(PathMutateKeystoneService),
			Rules:                   rule("keystoneservices", create, update),
			FailurePolicy:           &fail,
			MatchPolicy:             &equivalent,
			SideEffects:             &none,
			TimeoutSeconds:          &timeout,
			AdmissionReviewVersions: []string{"v1"},
		}},
	}
	validating := &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: ValidatingConfigurationName},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name:                    webhookValidateKeystoneService,
			ClientConfig:            cc(PathValidateKeystoneService),
			Rules:                   rule("keystoneservices", create, update),
			FailurePolicy:           &fail,
			MatchPolicy:             &equivalent,
			SideEffects:             &none,
			TimeoutSeconds:          &timeout,
			AdmissionReviewVersions: []string{"v1"},
		}, {
			Name:                    webhookValidateControlPlane,
			ClientConfig:            cc(PathValidateControlPlane),
			Rules:                   rule("controlplanes", create, update),
			FailurePolicy:           &fail,
			MatchPolicy:             &equivalent,
			SideEffects:             &none,
			TimeoutSeconds:          &timeout,
			AdmissionReviewVersions: []string{"v1"},
		}},
	}
	return mutating, validating
}

// EnsureConfigurations creates or updates the two webhook configurations
// Configurations renders. It needs RBAC to get, create and update
// mutatingwebhookconfigurations and validatingwebhookconfigurations.
func EnsureConfigurations(ctx context.Context, c client.Client, urlBase string, caBundle []byte) error {
	mutating, validating := Configurations(urlBase, caBundle)
	m := &admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: mutating.Name}}
	if _, err := controllerutil.CreateOrUpdate(ctx, c, m, func() error { m.Webhooks = mutating.Webhooks; return nil }); err != nil {
		return fmt.Errorf("ensure %s: %w", mutating.Name, err)
	}
	v := &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: validating.Name}}
	if _, err := controllerutil.CreateOrUpdate(ctx, c, v, func() error { v.Webhooks = validating.Webhooks; return nil }); err != nil {
		return fmt.Errorf("ensure %s: %w", validating.Name, err)
	}
	return nil
}

// RemoveConfigurations deletes the two webhook configurations Configurations
// renders, each only while every webhook in it still calls urlBase and trusts
// caBundle (another hub that re-registered them keeps them), with the
// resourceVersion read as a precondition. An absent configuration is not an
// error. It needs RBAC to get and delete mutatingwebhookconfigurations and
// validatingwebhookconfigurations. Errors: a read or delete failed (joined).
func RemoveConfigurations(ctx context.Context, c client.Client, urlBase string, caBundle []byte) error {
	base := strings.TrimRight(urlBase, "/")
	mine := func(cc []admissionregistrationv1.WebhookClientConfig) bool {
		for _, w := range cc {
			if w.URL == nil || !strings.HasPrefix(*w.URL, base+"/") || !bytes.Equal(w.CABundle, caBundle) {
				return false
			}
		}
		return len(cc) > 0
	}
	return errors.Join(
		removeMine(ctx, c, MutatingConfigurationName, &admissionregistrationv1.MutatingWebhookConfiguration{}, mine,
			func(m *admissionregistrationv1.MutatingWebhookConfiguration) (cc []admissionregistrationv1.WebhookClientConfig) {
				for _, w := range m.Webhooks {
					cc = append(cc, w.ClientConfig)
				}
				return cc
			}),
		removeMine(ctx, c, ValidatingConfigurationName, &admissionregistrationv1.ValidatingWebhookConfiguration{}, mine,
			func(v *admissionregistrationv1.ValidatingWebhookConfiguration) (cc []admissionregistrationv1.WebhookClientConfig) {
				for _, w := range v.Webhooks {
					cc = append(cc, w.ClientConfig)
				}
				return cc
			}))
}

// removeMine reads the configuration name into obj and deletes it (deleteAt)
// when mine holds for its webhooks' client configs (configs); an absent one
// is no error. Errors: the read or the delete failed.
func removeMine[T client.Object](ctx context.Context, c client.Client, name string, obj T,
	mine func([]admissionregistrationv1.WebhookClientConfig) bool, configs func(T) []admissionregistrationv1.WebhookClientConfig) error {
	if err := c.Get(ctx, client.ObjectKey{Name: name}, obj); err != nil {
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("reading %s: %w", name, err)
	}
	if !mine(configs(obj)) {
		return nil
	}
	return deleteAt(ctx, c, obj)
}

// deleteAt deletes o at the UID and resourceVersion it was read with; gone
// already is success.
func deleteAt(ctx context.Context, c client.Client, o client.Object) error {
	uid, rv := o.GetUID(), o.GetResourceVersion()
	err := c.Delete(ctx, o, client.Preconditions{UID: &uid, ResourceVersion: &rv})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("removing %s: %w", o.GetName(), err)
	}
	return nil
}
