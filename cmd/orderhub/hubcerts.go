package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"

	"github.com/open-policy-agent/cert-controller/pkg/rotator"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/c5c3/orderhub/webhooks"
)

// certRotationFlags select the in-cluster mode where the hub keeps its own
// webhook serving certificate, with github.com/open-policy-agent/cert-controller:
// a CA and a serving certificate for the webhook Service live in a Secret of
// the hub's namespace, are renewed before they expire, and the CA is patched
// into the caBundle of the two webhook configurations. The Secret must be
// mounted at --webhook-cert-dir (the chart does both). Off by default: the
// local stack uses --webhook-url-base, and a cert-manager Certificate needs
// neither mode.
type certRotationFlags struct {
	enabled        bool
	secret         string
	service        string
	mutatingName   string
	validatingName string
}

func (c *certRotationFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&c.enabled, "webhook-cert-rotation", false, "Generate and rotate the webhook serving certificate in the Secret --webhook-cert-secret "+
		"(namespace: $POD_NAMESPACE), for the Service --webhook-service, and inject its CA into the webhook configurations; "+
		"the Secret must be mounted at --webhook-cert-dir. The webhooks are served once the mounted certificate is present and the CA injected.")
	fs.StringVar(&c.secret, "webhook-cert-secret", "orderhub-hub-webhook-cert", "Secret holding the rotated webhook certificate (with --webhook-cert-rotation).")
	fs.StringVar(&c.service, "webhook-service", "orderhub-hub-webhook", "Service in front of the webhook server; the certificate names <service>.<namespace>.svc (with --webhook-cert-rotation).")
	fs.StringVar(&c.mutatingName, "webhook-mutating-configuration", webhooks.MutatingConfigurationName, "MutatingWebhookConfiguration whose caBundle is patched (with --webhook-cert-rotation).")
	fs.StringVar(&c.validatingName, "webhook-validating-configuration", webhooks.ValidatingConfigurationName, "ValidatingWebhookConfiguration whose caBundle is patched (with --webhook-cert-rotation).")
}

// rotator builds the cert-controller rotator for namespace ns, serving
// certificates from certDir. ready is closed when the certificate is mounted
// and the CA injected.
func (c *certRotationFlags) rotator(ns, certDir string, ready chan struct{}) (*rotator.CertRotator, error) {
	if ns == "" {
		return nil, errors.New("--webhook-cert-rotation needs the hub's namespace: set POD_NAMESPACE")
	}
	if certDir == "" {
		return nil, errors.New("--webhook-cert-rotation needs --webhook-cert-dir, where the Secret is mounted")
	}
	if c.secret == "" || c.service == "" {
		return nil, errors.New("--webhook-cert-rotation needs --webhook-cert-secret and --webhook-service")
	}
	svc := c.service + "." + ns + ".svc"
	return &rotator.CertRotator{
		SecretKey:      types.NamespacedName{Namespace: ns, Name: c.secret},
		CertDir:        certDir,
		CAName:         "orderhub-webhook-ca",
		CAOrganization: "orderhub",
		DNSName:        svc,
		ExtraDNSNames:  []string{svc + ".cluster.local", c.service + "." + ns, c.service},
		IsReady:        ready,
		FieldOwner:     "orderhub-hub",
		Webhooks: []rotator.WebhookInfo{
			{Name: c.mutatingName, Type: rotator.Mutating},
			{Name: c.validatingName, Type: rotator.Validating},
		},
		// Every replica serves webhooks, so every replica keeps its mounted
		// certificate in step with the Secret (as Gatekeeper runs it).
		RequireLeaderElection: false,
	}, nil
}

// deferredWebhooks registers the hub's webhooks once ready is closed: the
// webhook server starts only then, so it never starts without its mounted
// certificate. It runs on every replica.
type deferredWebhooks struct {
	mgr   ctrl.Manager
	ready <-chan struct{}
}

var _ manager.LeaderElectionRunnable = deferredWebhooks{}

func (deferredWebhooks) NeedLeaderElection() bool { return false }

func (d deferredWebhooks) Start(ctx context.Context) error {
	select {
	case <-ctx.Done():
		return nil
	case <-d.ready:
	}
	ctrl.Log.WithName("webhooks").Info("webhook certificate mounted and CA injected; serving webhooks")
	return webhooks.SetupWithManager(d.mgr)
}

// webhookReadyCheck is the readiness check of the webhook server: not ready
// while ready (when non-nil) is open, then the server's own StartedChecker.
func webhookReadyCheck(mgr ctrl.Manager, ready <-chan struct{}) healthz.Checker {
	return func(req *http.Request) error {
		if ready != nil {
			select {
			case <-ready:
			default:
				return fmt.Errorf("webhook certificate not yet mounted or its CA not yet injected")
			}
		}
		return mgr.GetWebhookServer().StartedChecker()(req)
	}
}
