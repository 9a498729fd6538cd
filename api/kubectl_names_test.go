// Package api_test checks the kubectl names (shortNames, categories) of the
// three API groups' generated CRDs against each other and against what runs
// beside them (README.md, "kubectl").
package api_test

import (
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

// ourGroups are the API groups orderhub serves.
var ourGroups = map[string]bool{"c5c3.io": true, "keystone.osh.openstack.org": true, "rabbitmq.osh.openstack.org": true}

// ourCategory lists every kind of the three groups (kubectl get orderhub).
const ourCategory = "orderhub"

// peer is what kubectl resolves for the resources of one neighbour: names are
// plurals, singulars and shortNames; categories are its category names.
type peer struct {
	source     string
	names      []string
	categories []string
}

// peers are the resources a cluster running orderhub serves beside it. A
// shortName equal to any of their names shadows theirs (kubectl expands
// shortNames before it matches plurals), and a category equal to a name
// shadows that name (kubectl expands categories first).
var peers = []peer{
	{
		source: "Kubernetes v1.37 built-in resources (kubectl api-resources; the discovery of kube-apiserver v1.37.2)",
		names: []string{
			"bindings", "binding", "componentstatuses", "componentstatus", "cs", "configmaps", "configmap", "cm",
			"endpoints", "ep", "events", "event", "ev", "limitranges", "limitrange", "limits", "namespaces", "namespace", "ns",
			"nodes", "node", "no", "persistentvolumeclaims", "persistentvolumeclaim", "pvc", "persistentvolumes",
			"persistentvolume", "pv", "pods", "pod", "po", "podtemplates", "podtemplate", "replicationcontrollers",
			"replicationcontroller", "rc", "resourcequotas", "resourcequota", "quota", "secrets", "secret",
			"serviceaccounts", "serviceaccount", "sa", "services", "service", "svc",
			"mutatingwebhookconfigurations", "validatingwebhookconfigurations", "validatingadmissionpolicies",
			"validatingadmissionpolicybindings", "mutatingadmissionpolicies", "mutatingadmissionpolicybindings",
			"customresourcedefinitions", "customresourcedefinition", "crd", "crds", "apiservices", "apiservice",
			"controllerrevisions", "daemonsets", "daemonset", "ds", "deployments", "deployment", "deploy",
			"replicasets", "replicaset", "rs", "statefulsets", "statefulset", "sts", "selfsubjectreviews", "tokenreviews",
			"localsubjectaccessreviews", "selfsubjectaccessreviews", "selfsubjectrulesreviews", "subjectaccessreviews",
			"horizontalpodautoscalers", "horizontalpodautoscaler", "hpa", "cronjobs", "cronjob", "cj", "jobs", "job",
			"certificatesigningrequests", "certificatesigningrequest", "csr", "clustertrustbundles",
			"podcertificaterequests", "leases", "lease", "leasecandidates", "endpointslices", "endpointslice",
			"flowschemas", "prioritylevelconfigurations", "ingressclasses", "ingresses", "ingress", "ing",
			"networkpolicies", "networkpolicy", "netpol", "ipaddresses", "ipaddress", "ip", "servicecidrs",
			"runtimeclasses", "poddisruptionbudgets", "poddisruptionbudget", "pdb", "clusterrolebindings",
			"clusterrolebinding", "clusterroles", "clusterrole", "rolebindings", "rolebinding", "roles", "role",
			"deviceclasses", "resourceclaims", "resourceclaimtemplates", "resourceslices", "devicetaintrules",
			"priorityclasses", "priorityclass", "pc", "csidrivers", "csinodes", "csistoragecapacities",
			"storageclasses", "storageclass", "sc", "volumeattachments", "volumeattributesclasses", "vac",
			"storageversionmigrations",
			// Singulars of the kinds above whose plural is listed alone.
			"controllerrevision", "selfsubjectreview", "tokenreview", "localsubjectaccessreview", "subjectaccessreview",
			"selfsubjectrulesreview", "selfsubjectaccessreview", "clustertrustbundle", "podcertificaterequest",
			"servicecidr", "ingressclass", "csinode", "csistoragecapacity", "volumeattributesclass", "csidriver",
			"volumeattachment", "mutatingadmissionpolicybinding", "validatingwebhookconfiguration",
			"mutatingwebhookconfiguration", "mutatingadmissionpolicy", "validatingadmissionpolicybinding",
			"validatingadmissionpolicy", "runtimeclass", "deviceclass", "resourceclaim", "resourceslice",
			"devicetaintrule", "resourceclaimtemplate", "flowschema", "prioritylevelconfiguration",
			"storageversionmigration",
		},
		categories: []string{"all", "api-extensions"},
	},
	{
		// Every CRD has plural and singular only, no shortNames.
		source: "K-ORC github.com/k-orc/openstack-resource-controller/v2@v2.6.0 config/crd/bases (openstack.k-orc.cloud)",
		names: []string{
			"addressscopes", "addressscope", "applicationcredentials", "applicationcredential", "domains", "domain",
			"endpoints", "endpoint", "flavors", "flavor", "floatingips", "floatingip", "groups", "group", "images", "image",
			"keypairs", "keypair", "networks", "network", "ports", "port", "projects", "project", "roles", "role",
			"routerinterfaces", "routerinterface", "routers", "router", "securitygroups", "securitygroup",
			"servergroups", "servergroup", "servers", "server", "services", "service", "subnets", "subnet", "trunks",
			"trunk", "users", "user", "volumes", "volume", "volumetypes", "volumetype",
		},
		categories: []string{"openstack"},
	},
	{
		source: "External Secrets github.com/external-secrets/external-secrets@v0.16.2 config/crds/bases (external-secrets.io, generators.external-secrets.io)",
		names: []string{
			"clusterexternalsecrets", "clusterexternalsecret", "ces", "clusterpushsecrets", "clusterpushsecret",
			"clustersecretstores", "clustersecretstore", "css", "externalsecrets", "externalsecret", "es",
			"pushsecrets", "pushsecret", "ps", "secretstores", "secretstore", "ss", "acraccesstokens", "acraccesstoken",
			"clustergenerators", "clustergenerator", "ecrauthorizationtokens", "ecrauthorizationtoken", "fakes", "fake",
			"gcraccesstokens", "gcraccesstoken", "generatorstates", "generatorstate", "gs", "githubaccesstokens",
			"githubaccesstoken", "grafanas", "grafana", "passwords", "password", "quayaccesstokens", "quayaccesstoken",
			"stssessiontokens", "stssessiontoken", "uuids", "uuid", "vaultdynamicsecrets", "vaultdynamicsecret",
			"webhooks", "webhook",
		},
		categories: []string{"external-secrets", "external-secrets-generators"},
	},
	{
		// No shortNames; the RabbitmqCluster its controllers watch has rmq.
		source: "messaging-topology-operator github.com/rabbitmq/messaging-topology-operator@v1.20.1 config/crd/bases " +
			"and github.com/rabbitmq/cluster-operator/v2@v2.20.0 (rabbitmq.com)",
		names: []string{
			"bindings", "binding", "exchanges", "exchange", "federations", "federation", "operatorpolicies",
			"operatorpolicy", "permissions", "permission", "policies", "policy", "queues", "queue", "schemareplications",
			"schemareplication", "shovels", "shovel", "superstreams", "superstream", "topicpermissions",
			"topicpermission", "users", "user", "vhosts", "vhost", "rabbitmqclusters", "rabbitmqcluster", "rmq",
		},
		categories: []string{"all", "rabbitmq"},
	},
}

// sharedCategories are peers' categories ours may join on purpose: kubectl
// get rabbitmq lists the upstream and the orderhub topology kinds together.
var sharedCategories = map[string]bool{"rabbitmq": true}

// loadOurCRDs reads every CRD of config/crd/bases.
func loadOurCRDs(t *testing.T) []*apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	files, err := filepath.Glob(filepath.Join(filepath.Dir(file), "..", "config", "crd", "bases", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no CRDs in config/crd/bases (run make manifests): %v", err)
	}
	var out []*apiextensionsv1.CustomResourceDefinition
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := yaml.UnmarshalStrict(raw, crd); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if !ourGroups[crd.Spec.Group] {
			t.Fatalf("%s: group %q is not one of orderhub's", f, crd.Spec.Group)
		}
		out = append(out, crd)
	}
	return out
}

// TestShortNamesAndCategories_NoClash fails when a kind of ours has no
// shortName or lacks the orderhub category, when two of our shortNames are
// equal or equal one of our names, or when a shortName or category of ours
// equals a name a peer's resources are resolved by.
func TestShortNamesAndCategories_NoClash(t *testing.T) {
	crds := loadOurCRDs(t)
	peerName := map[string]string{}
	peerCategory := map[string]string{}
	for _, p := range peers {
		for _, n := range p.names {
			peerName[n] = p.source
		}
		for _, c := range p.categories {
			peerCategory[c] = p.source
		}
	}
	if src, ok := peerCategory[ourCategory]; ok {
		t.Errorf("category %q is also used by %s", ourCategory, src)
	}
	ownNames := map[string]bool{}
	for _, crd := range crds {
		ownNames[crd.Spec.Names.Plural] = true
		ownNames[crd.Spec.Names.Singular] = true
	}
	short := map[string]string{}
	for _, crd := range crds {
		n := crd.Spec.Names
		if len(n.ShortNames) == 0 {
			t.Errorf("%s has no shortName", crd.Name)
		}
		if !slices.Contains(n.Categories, ourCategory) {
			t.Errorf("%s lacks the category %q: %v", crd.Name, ourCategory, n.Categories)
		}
		for _, s := range n.ShortNames {
			if other, ok := short[s]; ok {
				t.Errorf("shortName %q of %s is also one of %s", s, crd.Name, other)
			}
			short[s] = crd.Name
			if ownNames[s] {
				t.Errorf("shortName %q of %s is the plural or singular of one of our kinds", s, crd.Name)
			}
			if src, ok := peerName[s]; ok {
				t.Errorf("shortName %q of %s shadows a name of %s", s, crd.Name, src)
			}
			if src, ok := peerCategory[s]; ok {
				t.Errorf("shortName %q of %s is a category of %s, which kubectl expands first", s, crd.Name, src)
			}
		}
		for _, c := range n.Categories {
			if src, ok := peerName[c]; ok {
				t.Errorf("category %q of %s shadows a name of %s", c, crd.Name, src)
			}
			if ownNames[c] {
				t.Errorf("category %q of %s shadows one of our kinds' names", c, crd.Name)
			}
			if src, ok := peerCategory[c]; ok && !sharedCategories[c] {
				t.Errorf("category %q of %s is also a category of %s", c, crd.Name, src)
			}
		}
	}
	for _, crd := range crds {
		for _, c := range crd.Spec.Names.Categories {
			if _, ok := short[c]; ok {
				t.Errorf("category %q of %s is one of our shortNames", c, crd.Name)
			}
		}
	}
	if t.Failed() {
		t.Logf("our shortNames: %s", strings.Join(slices.Sorted(maps.Keys(short)), " "))
	}
}
