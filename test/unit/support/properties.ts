import type { INodeProperties } from 'n8n-workflow';

import { Money } from '../../../nodes/Money/Money.node';
import { describeProblem, type FieldProblem } from '../../../nodes/Money/helpers/validation';

/** The parameter of a node description called `name`; throws when there is none. */
export function parameter(properties: INodeProperties[], name: string): INodeProperties {
	const found = properties.find((property) => property.name === name);
	if (!found) throw new Error(`no parameter ${name}`);
	return found;
}

/** The values a parameter offers (the name of an option without a value). */
export function values(property: INodeProperties): unknown[] {
	return (property.options ?? []).map((option) => ('value' in option ? option.value : option.name));
}

/**
 * The parameters a `context.parameter` path names (`additionalFields.message`), found as n8n's
 * editor finds them for a node error's "In parameter" (NodeErrorView's parameterDisplayName): by
 * internal name through collections' options and fixed collections' values, an index `[0]` ignored,
 * the first parameter of that name whatever its displayOptions. Throws, as the editor shows
 * `Could not find parameter "…"`, when a segment names none.
 */
export function parametersAtPath(properties: INodeProperties[], path: string): INodeProperties[] {
	const found: INodeProperties[] = [];
	let level: unknown[] = properties;
	for (const segment of path.split('.')) {
		const name = segment.replace(/\[\d\]$/, '');
		const property = level.find((entry) => (entry as INodeProperties).name === name) as INodeProperties | undefined;
		if (!property) throw new Error(`Could not find parameter "${name}"`);
		found.push(property);
		const nested = property as { options?: unknown[]; values?: unknown[] };
		level = nested.options ?? nested.values ?? [];
	}
	return found;
}

/** The top-level parameters shown for this resource and operation (displayOptions.show on both, or neither). */
export function shownFor(properties: INodeProperties[], resource: string, operation: string): INodeProperties[] {
	return properties.filter((property) => {
		const show = property.displayOptions?.show ?? {};
		return (!show.resource || show.resource.includes(resource)) && (!show.operation || show.operation.includes(operation));
	});
}

function labels(chain: INodeProperties[]): string[] {
	return chain.map((property) => property.displayName);
}

/**
 * The problem's `parameter` is found by the editor (parametersAtPath over all the Money node's
 * parameters) as the panel of this resource and operation shows it, and its message starts with the
 * label of that parameter or, for a collection (`options`), of one of its fields.
 */
export function expectEditorFinds(problem: Pick<FieldProblem, 'parameter' | 'label' | 'field' | 'rule'>, resource: string, operation: string): void {
	const { properties } = new Money().description;
	const shown = parametersAtPath(shownFor(properties, resource, operation), problem.parameter);
	expect(labels(parametersAtPath(properties, problem.parameter))).toEqual(labels(shown));
	const last = shown[shown.length - 1];
	const fields = last.type === 'collection' ? ((last.options ?? []) as INodeProperties[]) : [];
	const candidates = [last.displayName, ...fields.map((option) => option.displayName)];
	expect(candidates.some((candidate) => candidate.startsWith(problem.label))).toBe(true);
	expect(describeProblem(problem as FieldProblem).startsWith(`${problem.label} (${problem.field})`)).toBe(true);
}
