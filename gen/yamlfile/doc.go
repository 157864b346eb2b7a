// Package yamlfile decodes the project's hand-edited and generated YAML files (spec/,
// tools/doccheck/) strictly, with every error naming "file:line:col".
package yamlfile
