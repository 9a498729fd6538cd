package v1alpha1

// Ownership labels of every child the hub projects for a registration or an
// order (docs/hub.md, "Children": the parent's kind, namespace, name and
// cluster). Children live in the ControlPlane's namespace, where owner
// references to the parent are impossible, so these labels are the link back:
// watches map child events to the parent by them, and sweeps select by them.
const (
	LabelOwnerKind      = "c5c3.io/owner-kind"
	LabelOwnerNamespace = "c5c3.io/owner-namespace"
	LabelOwnerName      = "c5c3.io/owner-name"
	// LabelOwnerCluster is the parent's cluster: empty for the management
	// cluster, else the registered target cluster's name (at most 63
	// characters, the label-value limit).
	LabelOwnerCluster = "c5c3.io/owner-cluster"
)

// MaxOwnerNameLength is the longest metadata.name, in bytes, of a kind whose
// name is a label value on its children (LabelOwnerName; the ControlPlane's
// name on the plane's objects): 63, the label-value limit of the API server
// (k8s.io/apimachinery/pkg/util/validation LabelValueMaxLength). The order
// kinds hold it as a CRD rule (MsgMetadataNameMax63); KeystoneService and
// ControlPlane in their validating webhook, so that a CR stored before the
// bound can still be updated and deleted.
const MaxOwnerNameLength = 63
