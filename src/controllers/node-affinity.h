/* node-affinity.h: whether a Node satisfies a core/v1 NodeSelector (a PersistentVolume's
 * spec.nodeAffinity.required) or a StorageClass's allowedTopologies, as component-helpers'
 * MatchNodeSelectorTerms and MatchTopologySelectorTerms decide. Pure: every argument is borrowed
 * and nothing is allocated that outlives a call. */
#ifndef FLEXLET_CONTROLLERS_NODE_AFFINITY_H
#define FLEXLET_CONTROLLERS_NODE_AFFINITY_H

#include <jansson.h>
#include <stdbool.h>

/* K8S (MatchNodeSelectorTerms): true when any of selector.nodeSelectorTerms matches node. A term
 * matches when every matchExpressions requirement holds for the node's labels and every
 * matchFields requirement holds for its fields (metadata.name); a term with neither, or with a
 * requirement that does not parse, matches nothing. Operators: In and NotIn (a value set, not
 * empty; NotIn also holds for a missing label), Exists and DoesNotExist (no values), Gt and Lt
 * (one decimal int64 value, compared with the label's value as an int64; a missing or
 * non-integer label never matches); matchFields only In and NotIn with one value on
 * metadata.name. A NULL selector or node matches nothing. */
bool node_selector_matches(const json_t *selector, const json_t *node);

/* One term of a NodeSelector (a NodeSelectorTerm, or a PreferredSchedulingTerm's preference) as
 * node_selector_matches() reads it: every requirement holds; an empty or unparsable term
 * matches nothing. */
bool node_selector_term_matches(const json_t *term, const json_t *node);

/* K8S (CheckNodeAffinity): true when the volume has no spec.nodeAffinity.required or node
 * satisfies it. Upstream builds the node it matches from the labels alone, so a matchFields
 * term never matches there (kubernetes#81725); flexlet matches metadata.name as the API
 * documents the field. */
bool pv_node_affinity_matches(const json_t *pv, const json_t *node);

/* K8S (MatchTopologySelectorTerms): true when terms (a StorageClass's allowedTopologies) is
 * missing or empty, or any term's matchLabelExpressions ({key, values}: the label's value is one
 * of values) all hold for the node's labels; a term without expressions, or one with an empty
 * values list, matches nothing. */
bool topology_terms_match(const json_t *terms, const json_t *node);

#endif
