package main

import (
	"context"
	"flag"
	"fmt"

	orcv1alpha1 "github.com/k-orc/openstack-resource-controller/v2/api/v1alpha1"
	"github.com/open-policy-agent/cert-controller/pkg/rotator"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/atrest"
	"github.com/c5c3/orderhub/controllers/hub/controlplane"
	"github.com/c5c3/orderhub/controllers/hub/credentialrotation"
	"github.com/c5c3/orderhub/controllers/hub/grants"
	"github.com/c5c3/orderhub/controllers/hub/keystoneapplicationcredential"
	"github.com/c5c3/orderhub/controllers/hub/keystoneproject"
	"github.com/c5c3/orderhub/controllers/hub/keystoneroleassignment"
	"github.com/c5c3/orderhub/controllers/hub/keystoneservice"
	"github.com/c5c3/orderhub/controllers/hub/keystoneuser"
	"github.com/c5c3/orderhub/controllers/hub/nameprobe"
	"github.com/c5c3/orderhub/controllers/hub/orders"
	"github.com/c5c3/orderhub/delivery/clusters"
	"github.com/c5c3/orderhub/internal/listcache"
	"github.com/c5c3/orderhub/webhooks"
)

func init() {
	subcommands["hub"] = subcommand{summary: "c5c3.io orders: KeystoneService, application credentials, delivery", run: runHub}
}

// hubFlags are the hub's own flags, beside the shared managerFlags.
type hubFlags struct {
	webhooks       bool
	webhookPort    int
	webhookCertDir string
	webhookURLBase string
	certRotation   certRotationFlags

	controlPlane          bool
	keystoneService       bool
	orders                bool
	openBaoAddress        string
	openBaoMount          string
	openBaoAuthMount      string
	openBaoRole           string
	openBaoServiceAccount string
	// Removed flags, accepted so an upgrade with the old arguments starts
	// (and removes the token copies); a warning names them.
	openBaoTokenSecret string
	openBaoTokenKey    string

	targetClusterSecretNamespace string
	targetClusterSecretLabel     string
}

func (h *hubFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&h.webhooks, "webhooks", true, "Serve the KeystoneService and ControlPlane admission webhooks.")
	fs.IntVar(&h.webhookPort, "webhook-port", 9443, "Port of the webhook server (ignored with --webhook-url-base, which names the port).")
	fs.StringVar(&h.webhookCertDir, "webhook-cert-dir", "", "Directory holding the webhook serving certificate (tls.crt, tls.key). "+
		"Default: controller-runtime's <tmp>/k8s-webhook-server/serving-certs. Required with --webhook-url-base: the hub writes a self-signed one there (plus ca.crt).")
	fs.StringVar(&h.webhookURLBase, "webhook-url-base", "", "Self-registration mode: serve on this https://<host>:<port> with a self-signed certificate "+
		"and create/update the webhook configurations to call it by URL (for the local stack, e.g. https://127.0.0.1:9443), "+
		"with timeoutSeconds 5 and failurePolicy Fail; a clean stop (SIGTERM, SIGINT) deletes them again. A hub killed without one leaves them: "+
		"KeystoneService and ControlPlane creates and updates are then refused, naming the webhook, until the hub is back or they are deleted "+
		"(docs/reference/keystoneservice.md, \"orderhub: self-registered webhooks\"). "+
		"Empty: the configurations are deployed separately (config/webhook) and the certificate is mounted into --webhook-cert-dir.")
	h.certRotation.register(fs)
	fs.BoolVar(&h.controlPlane, "controlplane-reconciler", true, "Reconcile ControlPlanes: write the admin clouds.yaml Secrets from the admin password Secret, "+
		"verify them against Keystone (AdminCredentialReady), import the admin domain and provision per-namespace SecretStores. "+
		"Turn off where another operator reconciles ControlPlane.")
	fs.BoolVar(&h.keystoneService, "keystoneservice-reconciler", true, "Reconcile KeystoneServices (catalog and account blocks: collision probes, "+
		"K-ORC children, role grants, password generations delivered through OpenBao and ESO, teardown) "+
		"and the CredentialRotations that rotate their passwords.")
	fs.BoolVar(&h.orders, "order-reconcilers", true, "Reconcile the Keystone orders (KeystoneUser, KeystoneProject, KeystoneRoleAssignment, "+
		"KeystoneApplicationCredential) on the management cluster and on every registered target cluster: K-ORC children in the "+
		"ControlPlane's namespace, OpenBao backups, and the delivered <name>-credentials Secrets on the order's cluster.")
	fs.StringVar(&h.openBaoAddress, "openbao-address", "", "OpenBao URL the ControlPlane's per-namespace SecretStores point at (e.g. https://openbao.openbao-system.svc:8200). "+
		"Empty: no SecretStore is provisioned and none gates AdminCredentialReady.")
	fs.StringVar(&h.openBaoMount, "openbao-kv-mount", controlplane.DefaultOpenBaoMount, "KV v2 mount the SecretStores read and write.")
	fs.StringVar(&h.openBaoAuthMount, "openbao-auth-mount", controlplane.DefaultOpenBaoAuthMount, "Mount path of OpenBao's Kubernetes auth method "+
		"the SecretStores log in with (docs/reference/openbao.md).")
	fs.StringVar(&h.openBaoRole, "openbao-role", controlplane.DefaultOpenBaoRole, "OpenBao role of that auth method the SecretStores log in as; "+
		"it binds --openbao-service-account in any namespace, and its policy grants each namespace only its own paths.")
	fs.StringVar(&h.openBaoServiceAccount, "openbao-service-account", controlplane.DefaultOpenBaoServiceAccount, "Name of the ServiceAccount the hub "+
		"creates in every namespace a ControlPlane consents to; its SecretStore logs in to OpenBao as it.")
	fs.StringVar(&h.openBaoTokenSecret, "openbao-token-secret", "", "Removed (ignored, with a warning): the SecretStores log in with Kubernetes auth "+
		"and the hub deletes the token copies older releases wrote.")
	fs.StringVar(&h.openBaoTokenKey, "openbao-token-key", "", "Removed (ignored, with a warning), as --openbao-token-secret.")
	fs.StringVar(&h.targetClusterSecretNamespace, "target-cluster-secret-namespace", "", "Namespace of the target-cluster registrations: "+
		"a Secret there labelled <--target-cluster-secret-label>=true registers the cluster named after the Secret, with a kubeconfig under the key "+
		clusters.DefaultSecretKey+" (see delivery/clusters). Default: --namespace; empty (and no --namespace): no target clusters. "+
		"With --namespace it must be that namespace (the hub caches only its namespace).")
	fs.StringVar(&h.targetClusterSecretLabel, "target-cluster-secret-label", clusters.DefaultSecretLabel,
		"Label key (value \"true\") that marks a Secret in --target-cluster-secret-namespace as a target-cluster registration.")
}

// targetClusterOptions turns the target-cluster flags into clusters.Options
// for the hub namespace ns (--namespace); nil when no registration namespace
// is set (the hub serves the management cluster only). Errors: a registration
// namespace other than ns when ns is set, since the hub's cache holds only ns.
func (h *hubFlags) targetClusterOptions(ns string) (*clusters.Options, error) {
	secretNS := h.targetClusterSecretNamespace
	if secretNS == "" {
		secretNS = ns
	}
	if secretNS == "" {
		return nil, nil
	}
	if ns != "" && secretNS != ns {
		return nil, fmt.Errorf("--target-cluster-secret-namespace=%s: the hub watches only --namespace=%s", secretNS, ns)
	}
	return &clusters.Options{Namespace: secretNS, SecretLabel: h.targetClusterSecretLabel, Cluster: trimTargetCache}, nil
}

// controlPlaneOptions turns the OpenBao flags into controlplane.Options.
func (h *hubFlags) controlPlaneOptions() controlplane.Options {
	var o controlplane.Options
	if h.openBaoAddress == "" {
		return o
	}
	o.OpenBao = &controlplane.OpenBao{Address: h.openBaoAddress, Mount: h.openBaoMount, AuthMount: h.openBaoAuthMount,
		Role: h.openBaoRole, ServiceAccount: h.openBaoServiceAccount}
	return o
}

// removedFlags names the removed flags that were set.
func (h *hubFlags) removedFlags() []string {
	var out []string
	if h.openBaoTokenSecret != "" {
		out = append(out, "--openbao-token-secret")
	}
	if h.openBaoTokenKey != "" {
		out = append(out, "--openbao-token-key")
	}
	return out
}

// runHub starts the hub manager and blocks until SIGINT/SIGTERM.
// Controllers are registered here as they are implemented.
func runHub(args []string) error {
	return runHubContext(ctrl.SetupSignalHandler(), args)
}

// runHubContext is runHub stopping when ctx is done.
func runHubContext(ctx context.Context, args []string) error {
	var mf managerFlags
	var hf hubFlags
	fs := flag.NewFlagSet("hub", flag.ContinueOnError)
	mf.register(fs, "hub")
	hf.register(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if mf.version {
		return printVersion()
	}
	tcOpts, err := hf.targetClusterOptions(mf.namespace)
	if err != nil {
		return err
	}
	scheme, err := newScheme(c5c3v1alpha1.AddToScheme, orcv1alpha1.AddToScheme)
	if err != nil {
		return err
	}
	ws, err := hf.webhookServing()
	if err != nil {
		return err
	}
	mgr, err := mf.newManager("hub", scheme, trimHubCache, func(o *ctrl.Options) {
		if hf.webhooks {
			o.WebhookServer = webhook.NewServer(ws.options)
		}
	})
	if err != nil {
		return err
	}
	if removed := hf.removedFlags(); len(removed) > 0 {
		ctrl.Log.WithName("hub").Info("ignoring removed flags: the SecretStores log in with OpenBao's Kubernetes auth "+
			"(--openbao-auth-mount, --openbao-role, --openbao-service-account); see docs/reference/openbao.md", "flags", removed)
	}
	// The multicluster manager wraps mgr: the controllers below stay on mgr
	// (the management cluster); target clusters engage from the registration
	// Secrets (delivery/clusters).
	hub, err := clusters.Wrap(ctx, mgr, tcOpts)
	if err != nil {
		return err
	}
	if hf.webhooks {
		if err := hf.setupWebhooks(mgr, ws); err != nil {
			return err
		}
	}
	if err := hf.setupControllers(mgr, hub); err != nil {
		return err
	}
	return hub.Manager.Start(ctx)
}

// webhookServing is how the webhook server gets its certificate: options for
// the server, the CA of a self-signed bundle (--webhook-url-base), and
// certsReady, closed once a rotated certificate is mounted and its CA injected
// (--webhook-cert-rotation); bundle and certsReady are nil in the other modes.
type webhookServing struct {
	options    webhook.Options
	bundle     *webhooks.CertBundle
	certsReady chan struct{}
}

// webhookServing validates the webhook flags; errors name the conflicting flags.
func (h *hubFlags) webhookServing() (webhookServing, error) {
	ws := webhookServing{options: webhook.Options{Port: h.webhookPort, CertDir: h.webhookCertDir}}
	if !h.webhooks {
		return ws, nil
	}
	if h.webhookURLBase != "" {
		if h.webhookCertDir == "" {
			return ws, fmt.Errorf("--webhook-url-base needs --webhook-cert-dir for the self-signed certificate")
		}
		if h.certRotation.enabled {
			return ws, fmt.Errorf("--webhook-cert-rotation and --webhook-url-base exclude each other")
		}
		var err error
		if ws.options, ws.bundle, err = webhooks.URLServerOptions(h.webhookURLBase, h.webhookCertDir); err != nil {
			return ws, err
		}
	}
	if h.certRotation.enabled {
		ws.certsReady = make(chan struct{})
	}
	return ws, nil
}

// setupWebhooks adds the webhooks' readiness check and registers them: after
// the certificate rotator is ready, or at once (with a registrar for a
// --webhook-url-base bundle).
func (h *hubFlags) setupWebhooks(mgr ctrl.Manager, ws webhookServing) error {
	if err := mgr.AddReadyzCheck("webhook", webhookReadyCheck(mgr, ws.certsReady)); err != nil {
		return err
	}
	if ws.certsReady != nil {
		cr, err := h.certRotation.rotator(ownNamespace(), h.webhookCertDir, ws.certsReady)
		if err != nil {
			return err
		}
		if err := rotator.AddRotator(mgr, cr); err != nil {
			return fmt.Errorf("webhook certificate rotation: %w", err)
		}
		return mgr.Add(deferredWebhooks{mgr: mgr, ready: ws.certsReady})
	}
	if err := webhooks.SetupWithManager(mgr); err != nil {
		return err
	}
	if ws.bundle == nil {
		return nil
	}
	// An uncached client: the registrar must not start informers on webhook
	// configurations (and needs no list/watch RBAC on them).
	direct, err := client.New(mgr.GetConfig(), client.Options{Scheme: mgr.GetScheme()})
	if err != nil {
		return err
	}
	return mgr.Add(webhooks.Registrar{
		Client: direct, Server: mgr.GetWebhookServer(),
		URLBase: h.webhookURLBase, CABundle: ws.bundle.CACert,
	})
}

// setupControllers registers the hub controllers the flags enable: ControlPlane
// and KeystoneService/CredentialRotation on the management cluster, the orders
// on every engaged cluster.
func (h *hubFlags) setupControllers(mgr ctrl.Manager, hub *clusters.Hub) error {
	// One admin session per plane for every hub kind that reads or grants
	// with the plane's admin credential (grants.Sessions).
	sessions := &grants.Sessions{}
	if h.controlPlane {
		if err := controlplane.SetupWithManager(mgr, h.controlPlaneOptions()); err != nil {
			return err
		}
	}
	if h.keystoneService {
		if err := keystoneservice.SetupWithManager(mgr, keystoneservice.Options{Granter: grants.Keystone{Sessions: sessions}}); err != nil {
			return err
		}
		if err := credentialrotation.SetupWithManager(mgr); err != nil {
			return err
		}
	}
	if h.orders {
		return setupOrders(hub, sessions)
	}
	return nil
}

// setupOrders registers the four order reconcilers on the multicluster
// manager: they serve orders on the management cluster and on every
// engaged target cluster (delivery/clusters). KeystoneUser and
// KeystoneApplicationCredential share one rotation budget per namespace
// (docs/reference/controlplane.md, "Rotation budget").
func setupOrders(hub *clusters.Hub, sessions *grants.Sessions) error {
	budget := orders.NewRotationBudget()
	rest := &atrest.Keystone{Sessions: sessions}
	names := &nameprobe.Keystone{Sessions: sessions}
	for _, o := range []struct {
		kind  string
		setup func(*clusters.Hub) error
	}{
		{"KeystoneUser", func(h *clusters.Hub) error {
			return keystoneuser.SetupWithManager(h, keystoneuser.Options{Budget: budget, Checker: rest, Prober: names})
		}},
		{"KeystoneProject", func(h *clusters.Hub) error {
			return keystoneproject.SetupWithManager(h, keystoneproject.Options{Prober: names})
		}},
		{"KeystoneRoleAssignment", func(h *clusters.Hub) error {
			return keystoneroleassignment.SetupWithManager(h, keystoneroleassignment.Options{Granter: grants.Keystone{Sessions: sessions,
				Lists: &listcache.Cache[struct{}]{}}})
		}},
		{"KeystoneApplicationCredential", func(h *clusters.Hub) error {
			return keystoneapplicationcredential.SetupWithManager(h, keystoneapplicationcredential.Options{Budget: budget, Checker: rest})
		}},
	} {
		if err := o.setup(hub); err != nil {
			return fmt.Errorf("%s reconciler: %w", o.kind, err)
		}
	}
	return nil
}
