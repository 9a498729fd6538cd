package keystoneservice

// Annotations on a registration's generation-scoped password Secrets.
const (
	// annotationAnswers records the c5c3v1alpha1.AnnotationPasswordRotationRequest
	// value current when the generation was created, so each request value
	// creates exactly one generation.
	annotationAnswers = "c5c3.io/answers-rotation-request"
	// annotationAdopted marks the first generation of an adopted user. K-ORC
	// v2.6.0 records such a generation as applied without writing it to
	// Keystone (user actuator reconcilePassword: UpdateUser only when a
	// password was applied before;
	// github.com/k-orc/openstack-resource-controller issue #920), so it is
	// never delivered and is superseded at once by a generation K-ORC does
	// write.
	annotationAdopted = "c5c3.io/adopted-user"
)
