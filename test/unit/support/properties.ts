import type { INodeProperties } from 'n8n-workflow';

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
