/**
 * docs/options.md's reference, generated from the node and credential descriptions themselves
 * (the build in dist/, what n8n loads: run `npm run build` first): for the Money node one section per resource and
 * operation, for each trigger and the credential one each. Every parameter, every option of a
 * collection, each with its type, default and description. A parameter added to a description
 * changes the generated text, so `npm test` fails until `npm run docs` has written it.
 * A node with several versions (a VersionedNodeType, or `version: [1, 2]` with `@version`
 * conditions) gets one section per version.
 */

import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ICredentialType, INodeProperties, INodePropertyCollection, INodePropertyOptions, INodeType, INodeTypeDescription } from 'n8n-workflow';

import { REPO } from './sources';

/** A class of the build, by its file under dist/ and its export name. */
function built<T>(file: string, exported: string): T {
	const full = path.join(REPO, 'dist', file);
	if (!fs.existsSync(full)) throw new Error(`${full} is missing: run npm run build first`);
	const Type = require(full)[exported];
	return new Type() as T;
}

type Values = Record<string, unknown>;

/** One `displayOptions` condition against the values known for this section (unknown keys: shown, with a note). */
function conditionHolds(wanted: unknown[], actual: unknown): boolean {
	return wanted.some((w) => {
		if (w && typeof w === 'object' && '_cnd' in (w as object)) {
			const [[op, bound]] = Object.entries((w as { _cnd: Record<string, any> })._cnd);
			const n = Number(actual);
			if (op === 'eq') return actual === bound;
			if (op === 'not') return actual !== bound;
			if (op === 'gte') return n >= bound;
			if (op === 'lte') return n <= bound;
			if (op === 'gt') return n > bound;
			if (op === 'lt') return n < bound;
			if (op === 'between') return n >= bound.from && n <= bound.to;
			throw new Error(`displayOptions condition _cnd.${op} is not handled by scripts/docs/options-reference.ts`);
		}
		return w === actual;
	});
}

/** Whether a parameter shows for these values, and under which further conditions (text). */
function visibility(p: INodeProperties, known: Values): { shown: boolean; when: string[] } {
	const when: string[] = [];
	const show = (p.displayOptions?.show || {}) as Record<string, unknown[]>;
	const hide = (p.displayOptions?.hide || {}) as Record<string, unknown[]>;
	for (const [key, wanted] of Object.entries(show)) {
		if (key in known) {
			if (!conditionHolds(wanted, known[key])) return { shown: false, when };
		} else when.push(key === '@tool' ? 'when used as an AI tool' : `when ${key} is ${wanted.map((w) => `\`${JSON.stringify(w)}\``).join(' or ')}`);
	}
	for (const [key, wanted] of Object.entries(hide)) {
		if (key in known) {
			if (conditionHolds(wanted, known[key])) return { shown: false, when };
		} else when.push(`unless ${key} is ${wanted.map((w) => `\`${JSON.stringify(w)}\``).join(' or ')}`);
	}
	return { shown: true, when };
}

function cell(text: unknown): string {
	return String(text ?? '').replace(/\|/g, '\\|').replace(/\n+/g, ' ');
}

function defaultText(p: INodeProperties): string {
	if (p.type === 'collection' || p.type === 'fixedCollection') return '';
	if (p.default === '' || p.default === undefined || p.default === null) return '';
	return `\`${JSON.stringify(p.default)}\``;
}

function choices(p: INodeProperties): string {
	if (p.type !== 'options' && p.type !== 'multiOptions') return '';
	const opts = (p.options || []) as INodePropertyOptions[];
	return ` One of: ${opts.map((o) => `${o.name} (\`${String(o.value)}\`)`).join(', ')}.`;
}

function rows(props: INodeProperties[], known: Values, prefix = ''): string[] {
	const out: string[] = [];
	for (const p of props) {
		if (p.type === 'notice' || p.type === 'hidden') continue;
		const { shown, when } = visibility(p, known);
		if (!shown) continue;
		const name = `${prefix}${p.displayName}`;
		const notes = [p.required ? 'Required.' : '', when.length ? `Shown ${when.join(', ')}.` : ''].filter(Boolean).join(' ');
		const description = p.description ? p.description.replace(/([^.!?])$/, '$1.') : '';
		out.push(`| ${cell(name)} | \`${p.name}\` | ${p.type} | ${cell(defaultText(p))} | ${cell([description, choices(p).trim(), notes].filter(Boolean).join(' '))} |`);
		if (p.type === 'collection') out.push(...rows((p.options || []) as INodeProperties[], {}, `${name} → `));
		if (p.type === 'fixedCollection') {
			for (const group of (p.options || []) as INodePropertyCollection[]) out.push(...rows(group.values, {}, `${name} → ${group.displayName} → `));
		}
	}
	return out;
}

const HEADER = ['| Parameter | Name | Type | Default | Description |', '|---|---|---|---|---|'];

function table(props: INodeProperties[], known: Values): string {
	const body = rows(props, known);
	return [...HEADER, ...(body.length ? body : ['| (none) | | | | |'])].join('\n');
}

/** Each version's description of a node type. */
function versions(type: INodeType | { nodeVersions: Record<number, INodeType>; description: { defaultVersion?: number } }): Array<[number, INodeTypeDescription]> {
	if ('nodeVersions' in type && type.nodeVersions) {
		return Object.entries(type.nodeVersions).map(([v, t]) => [Number(v), (t as INodeType).description]);
	}
	const d = (type as INodeType).description;
	const list = Array.isArray(d.version) ? d.version : [d.version];
	return list.map((v) => [v, d]);
}

function optionValues(props: INodeProperties[], name: string, known: Values): Array<{ name: string; value: string }> {
	const p = props.find((x) => x.name === name && visibility(x, known).shown);
	return p ? ((p.options || []) as INodePropertyOptions[]).map((o) => ({ name: o.name, value: String(o.value) })) : [];
}

function moneyReference(): string {
	const sections: string[] = [];
	const all = versions(built<INodeType>('nodes/Money/Money.node.js', 'Money'));
	for (const [version, d] of all) {
		const base = { '@version': version };
		const title = all.length > 1 ? ` (node version ${version})` : '';
		for (const resource of optionValues(d.properties, 'resource', base)) {
			for (const operation of optionValues(d.properties, 'operation', { ...base, resource: resource.value })) {
				const known = { ...base, resource: resource.value, operation: operation.value };
				const props = d.properties.filter((p) => p.name !== 'resource' && p.name !== 'operation');
				sections.push(`### ${resource.name} → ${operation.name}${title}\n\n${table(props, known)}`);
			}
		}
	}
	return sections.join('\n\n');
}

/** A trigger's parameters, one table for the node versions that have the same ones. */
function triggerReference(type: INodeType): string {
	const tables = new Map<string, number[]>();
	for (const [version, d] of versions(type)) {
		const text = table(d.properties, { '@version': version });
		tables.set(text, [...(tables.get(text) ?? []), version]);
	}
	if (tables.size === 1) return [...tables.keys()][0];
	return [...tables].map(([text, same]) => `Node version${same.length > 1 ? 's' : ''} ${same.join(', ')}:\n\n${text}`).join('\n\n');
}

function credentialReference(type: ICredentialType): string {
	return table(type.properties, {});
}

const REFERENCES: Record<string, () => string> = {
	money: moneyReference,
	moneyTrigger: () => triggerReference(built<INodeType>('nodes/MoneyTrigger/MoneyTrigger.node.js', 'MoneyTrigger')),
	moneyPollTrigger: () => triggerReference(built<INodeType>('nodes/MoneyPollTrigger/MoneyPollTrigger.node.js', 'MoneyPollTrigger')),
	moneyApi: () => credentialReference(built<ICredentialType>('credentials/MoneyApi.credentials.js', 'MoneyApi')),
};

/** The `<!--figures:options:NAME-->` block: money, moneyTrigger, moneyPollTrigger, moneyApi. */
export function optionsReference(name: string): string {
	const build = REFERENCES[name];
	if (!build) throw new Error(`no options reference "${name}" (scripts/docs/options-reference.ts)`);
	return build();
}
