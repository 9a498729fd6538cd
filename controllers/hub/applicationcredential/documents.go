package applicationcredential

import (
	"fmt"
	"strconv"
	"strings"

	orcv1alpha1 "github.com/k-orc/openstack-resource-controller/v2/api/v1alpha1"

	"github.com/c5c3/orderhub/delivery/cloudsyaml"
	"github.com/c5c3/orderhub/delivery/openbao"
	"github.com/c5c3/orderhub/korc"
)

// MintCloudName is the mint-cloud document's cloud name.
const MintCloudName = "mint"

// SecretValueKey is the secret-v<N> key K-ORC reads the credential's secret
// from (docs/reference/keystoneapplicationcredential.md, "Projected child names").
const SecretValueKey = "value"

// DeliveredKeys are the delivered Secret's keys and status.secretKeys
// (docs/reference/keystoneapplicationcredential.md, "Delivered Secret contract").
var DeliveredKeys = []string{openbao.PropertyCloudsYAML, openbao.PropertyApplicationCredentialID,
	openbao.PropertyApplicationCredentialSecret}

// MintParams are the inputs of the mint-cloud document K-ORC creates and
// deletes credentials with (docs/reference/keystoneapplicationcredential.md,
// "Projected child names"): user by UserID, else UserName in UserDomain;
// project likewise.
type MintParams struct {
	AuthURL                      string
	UserID, UserName, UserDomain string
	Password                     []byte
	ProjectID                    string
	ProjectName, ProjectDomain   string
	Region, Interface            string
	CABundle                     []byte // K-ORC's cacert key; nil omits it
}

// MintCloudData is the mint-cloud Secret's data (clouds.yaml, and cacert with
// a CA bundle). Errors: the cloud does not validate; never carry the password.
func MintCloudData(p MintParams) (map[string][]byte, error) {
	c := cloudsyaml.Password(cloudsyaml.PasswordParams{AuthURL: p.AuthURL, Password: string(p.Password),
		Region: p.Region, Interface: p.Interface})
	if p.UserID != "" {
		c.AuthInfo.UserID = p.UserID
	} else {
		c.AuthInfo.Username, c.AuthInfo.UserDomainName = p.UserName, p.UserDomain
	}
	if p.ProjectID != "" {
		c.AuthInfo.ProjectID = p.ProjectID
	} else {
		c.AuthInfo.ProjectName, c.AuthInfo.ProjectDomainName = p.ProjectName, p.ProjectDomain
	}
	if c.AuthInfo.ProjectID == "" && c.AuthInfo.ProjectName == "" {
		return nil, fmt.Errorf("applicationcredential: the mint-cloud document needs the project")
	}
	doc, err := cloudsyaml.Render(MintCloudName, c)
	if err != nil {
		return nil, err
	}
	out := map[string][]byte{cloudsyaml.Key: doc}
	if len(p.CABundle) > 0 {
		out[orcv1alpha1.CloudCredencialsCASecretKey] = p.CABundle
	}
	return out, nil
}

// DeliveredParams are the inputs of the delivered document.
type DeliveredParams struct {
	// CloudName is the order's name.
	CloudName         string
	AuthURL           string
	ID, Secret        string
	Region, Interface string
}

// DeliveredData is the delivered and backed-up data
// (docs/reference/keystoneapplicationcredential.md, "Delivered Secret
// contract"). Errors: the cloud does not validate.
func DeliveredData(p DeliveredParams) (map[string][]byte, error) {
	doc, err := cloudsyaml.Render(p.CloudName, cloudsyaml.ApplicationCredential(cloudsyaml.ApplicationCredentialParams{
		AuthURL: p.AuthURL, ID: p.ID, Secret: p.Secret, Region: p.Region, Interface: p.Interface}))
	if err != nil {
		return nil, err
	}
	return map[string][]byte{
		openbao.PropertyCloudsYAML:                  doc,
		openbao.PropertyApplicationCredentialID:     []byte(p.ID),
		openbao.PropertyApplicationCredentialSecret: []byte(p.Secret),
	}, nil
}

// GenerationOfChild parses N ≥ 1 out of prefix+"credential-v<N>" or
// prefix+"secret-v<N>".
func GenerationOfChild(prefix, name string) (gen int64, ok bool) {
	rest, found := strings.CutPrefix(name, prefix)
	if !found {
		return 0, false
	}
	for _, d := range []string{korc.CredentialDiscriminator(0), korc.SecretDiscriminator(0)} {
		stem := strings.TrimSuffix(d, "0")
		if n, ok := strings.CutPrefix(rest, stem); ok {
			g, err := strconv.ParseInt(n, 10, 64)
			if err != nil || g < 1 || strconv.FormatInt(g, 10) != n {
				return 0, false
			}
			return g, true
		}
	}
	return 0, false
}

// createFailurePrefix is K-ORC v2.6.0's message for a non-retryable create
// failure (internal/controllers/applicationcredential/actuator.go).
const createFailurePrefix = "invalid configuration creating resource: "

// httpErrorMarker marks a gophercloud ErrUnexpectedResponseCode: Keystone
// answered.
const httpErrorMarker = "Expected HTTP response code"

// LatchedTransportError reports a terminal error K-ORC v2.6.0 latched on a
// create Keystone never answered (it treats non-HTTP errors as terminal); the
// reconciler clears it by removing K-ORC's Progressing condition.
func LatchedTransportError(s korc.State) bool {
	return s.Phase == korc.PhaseFailed && s.Reason == orcv1alpha1.ConditionReasonInvalidConfiguration &&
		strings.HasPrefix(s.Message, createFailurePrefix) && !strings.Contains(s.Message, httpErrorMarker)
}

const unauthorizedMarker = "but got 401 instead"

// AuthenticationFailure reports a terminal 401 on the mint-cloud credentials,
// which a newer password document can cure.
func AuthenticationFailure(s korc.State) bool {
	return s.Phase == korc.PhaseFailed && strings.Contains(s.Message, unauthorizedMarker)
}

// CreatableGeneration errors unless gen is above current and previous: a
// lower generation names a credential a consumer holds or held.
func CreatableGeneration(gen, current, previous int64) error {
	if gen <= current || gen <= previous {
		return fmt.Errorf("generation %d is not new: the order holds generation %d (previous %d)", gen, current, previous)
	}
	return nil
}

// AdoptableChild errors unless a child whose create met AlreadyExists carries
// every label in want and is not being deleted.
func AdoptableChild(kind, name string, labels, want map[string]string, deleting bool) error {
	for k, v := range want {
		if labels[k] != v {
			return fmt.Errorf("%s %s exists and is not this order's (label %s=%q, want %q)", kind, name, k, labels[k], v)
		}
	}
	if deleting {
		return fmt.Errorf("%s %s exists and is being deleted; it is created again once it is gone", kind, name)
	}
	return nil
}

// AnnotationMintPasswordGeneration records on a credential-v<N> child the
// user's password generation its mint-cloud was built from.
const AnnotationMintPasswordGeneration = "c5c3.io/mint-password-generation"

// MintPasswordGenerationOf parses it; 0 when absent or not positive.
func MintPasswordGenerationOf(annotations map[string]string) int64 {
	g, err := strconv.ParseInt(annotations[AnnotationMintPasswordGeneration], 10, 64)
	if err != nil || g < 1 {
		return 0
	}
	return g
}
