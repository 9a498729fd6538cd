package keystoneservice

// Annotations on a registration's generation-scoped password Secrets.
const (
	// annotationAnswers records the AnnotationPasswordRotationRequest value a
	// generation answers, so each request value creates exactly one generation.
	annotationAnswers = "c5c3.io/answers-rotation-request"
	// annotationAdopted marks the first generation of an adopted user: K-ORC
	// v2.6.0 records it as applied without writing it to Keystone
	// (https://github.com/k-orc/openstack-resource-controller/issues/920), so it
	// is never delivered and a written generation supersedes it at once.
	annotationAdopted = "c5c3.io/adopted-user"
)
