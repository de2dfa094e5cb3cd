/**
 * The Money node's outputs for its parameters. n8n evaluates this function's own source text as
 * an expression (`outputs: '={{(…)($parameter)}}'`), so it must stay self-contained: no imports,
 * no names from outside its body. Reconcile has four outputs (five with its Report option); every
 * other operation keeps the one main output.
 */
export const configuredOutputs = (parameters: { operation?: unknown; options?: { report?: unknown } }) => {
	if (parameters.operation !== 'reconcile') return ['main'];
	const names = ['Matched', 'Mismatched', 'Missing in API', 'Unexpected in API'];
	if (parameters.options && parameters.options.report === true) names.push('Report');
	return names.map((displayName) => ({ type: 'main', displayName }));
};
