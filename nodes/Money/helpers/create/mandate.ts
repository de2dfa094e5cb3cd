import { randomUUID } from 'node:crypto';

import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { toIsoTimestamp } from '../../../api/time';
import { ACCOUNT_TYPE_FIELD, AGENT_METADATA_PREFIX, PARTY_FIELD, type TransactionResource } from '../../../api/values';
import { amountOfEnvelope, statusOfEnvelope } from '../../../events/envelope';
import { type NodeError, notSent } from '../../../transport/errors';
import { fieldError } from '../validation';
import { stableStringify } from './memory';
import { approvalsOf } from './review';

/**
 * An AI agent's mandate on the Money tool (docs/agents.md): what a create the node runs as a tool
 * may move without a person, checked before any request. The 24-hour total is read from the API,
 * where every create the tool made carries AGENT_METADATA, so it holds across executions, restarts
 * and workers; this execution's own sends count until the list shows them.
 */

/** The metadata an agent's create carries: the verdict, the tool call, the 24-hour total before it, and its key. */
export const AGENT_METADATA = {
	verdict: `${AGENT_METADATA_PREFIX}mandate`,
	call: `${AGENT_METADATA_PREFIX}tool_call`,
	spentBefore: `${AGENT_METADATA_PREFIX}spent_24h_before`,
	key: `${AGENT_METADATA_PREFIX}key`,
	review: `${AGENT_METADATA_PREFIX}review`,
} as const;

const DAY_MS = 24 * 60 * 60 * 1000;

/** Statuses of a create that moved no money and never will. */
const NOTHING_MOVED = new Set(['FAILED', 'CANCELLED']);

export function isToolCall(context: IExecuteFunctions): boolean {
	return context.getNode().type.endsWith('Tool') || context.isToolExecution?.() === true;
}

/** The mandate's parameters, with their labels. */
const MANDATE_PARAMETERS = [
	['allowMoneyMovementInToolMode', 'Allow Money Movement in Tool Mode'],
	['maxAmountInToolMode', 'Maximum Amount in Tool Mode'],
	['maxAmountPer24HoursInToolMode', 'Maximum per 24 Hours in Tool Mode'],
	['allowedPartiesInToolMode', 'Allowed Parties in Tool Mode'],
	['allowedCurrenciesInToolMode', 'Allowed Currencies in Tool Mode'],
	['allowedChannelsInToolMode', 'Allowed Channels in Tool Mode'],
	['mandateExpiresInToolMode', 'Mandate Expires in Tool Mode'],
	['beyondMandateInToolMode', 'Beyond the Mandate in Tool Mode'],
] as const;

/** The mandate a person set on the tool, read for one call. */
export interface MandateTerms {
	perPayment: number;
	/** 0: none. */
	per24Hours: number;
	/** Empty: any party. */
	parties: string[];
	currencies: string[];
	channels: string[];
	/** Epoch ms; undefined: never. */
	expiresAt?: number;
	beyond: 'refuse' | 'review';
}

/** What the call found in the last 24 hours, this call left out. */
export interface Spending {
	total: number;
	/** Listed creates counted as the agent's because the list shows no metadata. */
	unmarked: number;
}

/** What an agent's create carries on its item and in its metadata. */
export interface MandateVerdict {
	verdict: 'within mandate' | 'approved in review';
	/** null: no 24-hour limit, nothing read. */
	spent_24h_before: number | null;
	spent_24h_after: number | null;
	limit_24h: number | null;
	tool_call_id: string | null;
	review?: IDataObject;
	/** What a reviewed call went beyond. */
	beyond_mandate?: string[];
}

function listOf(value: unknown): string[] {
	const items = Array.isArray(value) ? value : typeof value === 'string' ? value.split(/[,\n]/) : value === undefined || value === null ? [] : [value];
	return items.map((item) => String(item).trim()).filter((item) => item !== '');
}

/**
 * What an expression in a mandate parameter may read: another node by its name written out, the
 * variables, secrets, the time, the workflow and execution, and n8n's helpers over them; never
 * the tool's input, which holds the model's arguments, nor the tool's own runs.
 */
const PERSON_READS = new Set(['$vars', '$env', '$secrets', '$now', '$today', '$workflow', '$execution', '$ifEmpty', '$if', '$min', '$max', '$jmespath']);

/** Whether a parameter's value (a list's entries included) holds an expression that may read what the model wrote. */
function mayReadModel(configured: unknown, node: string): boolean {
	const leaves = (value: unknown): string[] =>
		Array.isArray(value) ? value.flatMap(leaves) : value !== null && typeof value === 'object' ? Object.entries(value).flatMap(([key, each]) => [key, ...leaves(each)]) : [String(value)];
	const text = leaves(configured).join('\n');
	if (!text.includes('{{')) return false;
	if (/\\[ux]/i.test(text) || /\b(this|eval|Function|constructor|evaluateExpression|fromai)\b/i.test(text)) return true;
	// Every `$` is read on its own (a lookahead), one in a comment or a string too; a `$` followed by
	// neither a name nor a parenthesis (`$ (`, `[$][0](`) reads a node out of sight, `$('')` the previous node.
	for (const match of text.matchAll(/\$(?=(\(\s*(?:'([^'\\]*)'|"([^"\\]*)")?\s*\)?|[A-Za-z_]\w*|))/g)) {
		if (!match[1].startsWith('(')) {
			if (!PERSON_READS.has(`$${match[1]}`)) return true;
			continue;
		}
		const name = match[2] ?? match[3];
		if (name === undefined || name === '' || name === node || !match[1].endsWith(')')) return true;
	}
	return false;
}

const isExpression = (configured: unknown): boolean => (JSON.stringify(configured) ?? '').includes('{{') || (typeof configured === 'string' && configured.startsWith('='));

/**
 * The terms of item `itemIndex`, or the field error of one that cannot be read. A person sets them:
 * an expression may read other nodes, variables or the time, never the tool's input (the model's
 * arguments); and an expression that gives nothing, or no number, refuses rather than lifting the
 * limit it stands for (empty means "any" only when the person left the field empty).
 */
export function mandateTermsOf(context: IExecuteFunctions, itemIndex: number): MandateTerms | NodeError {
	const node = context.getNode();
	const refuse = (parameter: string, label: string, rule: string) => fieldError(node, { parameter, label, field: parameter, rule }, itemIndex);
	const values: Record<string, unknown> = {};
	for (const [parameter, label] of MANDATE_PARAMETERS) {
		const configured = node.parameters[parameter];
		if (mayReadModel(configured, node.name)) {
			return refuse(parameter, label, "is set by the person who gives the agent this tool, never by the model: an expression here may read other nodes ($('…')), $vars, $env, $now, $today, $workflow and $execution, never $fromAI(), $json or the tool's input");
		}
		values[parameter] = context.getNodeParameter(parameter, itemIndex, undefined);
		if (!isExpression(configured)) continue;
		const value = values[parameter];
		const empty =
			value === undefined || value === null || value === '' || listOf(value).length === 0 || (parameter === 'maxAmountPer24HoursInToolMode' && Number(value) === 0);
		if (empty) return refuse(parameter, label, `gave nothing (${JSON.stringify(value) ?? 'undefined'}): an expression must give a value; set no expression to set no such limit`);
	}
	for (const [parameter, label] of MANDATE_PARAMETERS.filter(([name]) => name === 'maxAmountInToolMode' || name === 'maxAmountPer24HoursInToolMode')) {
		const value = values[parameter] ?? 0;
		if (typeof value !== 'number' && !(typeof value === 'string' && /^\s*\d+(\.\d+)?\s*$/.test(value))) return refuse(parameter, label, `must be a number of 0 or more (it read ${JSON.stringify(value)})`);
		if (!(Number(value) >= 0)) return refuse(parameter, label, `must be a number of 0 or more (it read ${JSON.stringify(value)})`);
	}
	const expiry = values.mandateExpiresInToolMode;
	let expiresAt: number | undefined;
	if (expiry !== '' && expiry !== null && expiry !== undefined) {
		const iso = toIsoTimestamp(expiry, context.getTimezone());
		expiresAt = iso === undefined ? Number.NaN : Date.parse(iso);
		if (Number.isNaN(expiresAt)) return refuse('mandateExpiresInToolMode', 'Mandate Expires in Tool Mode', `must be a date and time (it read ${JSON.stringify(expiry)})`);
	}
	return {
		perPayment: Number(values.maxAmountInToolMode ?? 0),
		per24Hours: Number(values.maxAmountPer24HoursInToolMode ?? 0),
		parties: listOf(values.allowedPartiesInToolMode),
		currencies: listOf(values.allowedCurrenciesInToolMode),
		channels: listOf(values.allowedChannelsInToolMode),
		expiresAt,
		beyond: values.beyondMandateInToolMode === 'review' ? 'review' : 'refuse',
	};
}

/**
 * A party as one payment is told from another: a phone number by its digits (`+228…`, `00228…`
 * and `228…` are one number); any other identifier as written.
 */
export function partyKey(identifier: string, type: unknown): string {
	const compact = identifier.replace(/[\s().-]/g, '');
	if (type === 'phone' && /^(\+|00)?\d+$/.test(compact)) return compact.replace(/^(\+|00)/, '');
	return identifier.trim();
}

const partyKeyOf = (resource: TransactionResource, body: IDataObject): string => {
	const party = (body[PARTY_FIELD[resource]] ?? {}) as IDataObject;
	return `${String(party.type ?? '')}:${partyKey(String(party.identifier ?? ''), party.type)}`;
};

/** The payment a call asks for, as one value: the same payment written another way is the same. */
export function movementOf(resource: TransactionResource, body: IDataObject): unknown[] {
	const party = (body[PARTY_FIELD[resource]] ?? {}) as IDataObject;
	const accountType = party.type === 'phone' ? (body[ACCOUNT_TYPE_FIELD[resource]] ?? null) : null;
	return [body.amount, body.currency, body.channel, partyKeyOf(resource, body), accountType || null, body.account_number || null];
}

const partyOf = (resource: TransactionResource, body: IDataObject): string => String((body[PARTY_FIELD[resource]] as IDataObject | undefined)?.identifier ?? '');

/** The limits a call breaks that need no read, in the order a person would lift them, each naming the limit and the call's value. */
export function termsBroken(resource: TransactionResource, terms: MandateTerms, body: IDataObject, now: number): string[] {
	const broken: string[] = [];
	const amount = body.amount as number;
	if (terms.expiresAt !== undefined && now >= terms.expiresAt) broken.push(`the mandate expired at ${new Date(terms.expiresAt).toISOString()}`);
	if (terms.currencies.length > 0 && !terms.currencies.includes(String(body.currency))) broken.push(`currency ${String(body.currency)} is not one the mandate allows (${terms.currencies.join(', ')})`);
	if (terms.channels.length > 0 && !terms.channels.includes(String(body.channel))) broken.push(`channel ${String(body.channel)} is not one the mandate allows (${terms.channels.join(', ')})`);
	const party = partyOf(resource, body);
	const type = ((body[PARTY_FIELD[resource]] ?? {}) as IDataObject).type;
	const allowed = terms.parties.some((each) => each === party || (type === 'phone' && partyKey(each, type) === partyKey(party, type)));
	if (terms.parties.length > 0 && !allowed) broken.push(`${party} is not among the mandate's allowed ${resource === 'payout' ? 'beneficiaries' : 'payers'}`);
	if (!(amount <= terms.perPayment)) broken.push(`amount ${amount} is above the maximum per payment of ${terms.perPayment}`);
	return broken;
}

/** The 24-hour limit, when the call would pass it. */
export function dayLimitBroken(terms: MandateTerms, amount: number, spent: Spending): string | undefined {
	if (terms.per24Hours <= 0 || spent.total + amount <= terms.per24Hours) return undefined;
	const unmarked = spent.unmarked > 0 ? `, counting all ${spent.unmarked} of this API client's transactions, as its list shows no metadata: give the agent an API client of its own` : '';
	return `amount ${amount} would take the last 24 hours' total past the maximum of ${terms.per24Hours} (already ${spent.total}${unmarked})`;
}

/**
 * The agent's creates of the last 24 hours that moved or may move money: those the API lists with
 * AGENT_METADATA, or every one when the list shows no metadata at all (the spec does not say list
 * rows carry it), and one whose metadata is not an object; and this execution's sends (`own`, by
 * key) the list does not show yet, an unacknowledged one included. The API's window decides what
 * is in the last 24 hours. A listed create under the call's own key counts (the API may have made
 * it from an earlier execution); an amount that cannot be read fails the read. Every doubt counts
 * toward paying less.
 */
export function spendingOf(listed: IDataObject[], own: Array<{ key: string; amount: number; reference?: string }>, callKey: string): Spending {
	const listsMetadata = listed.some((envelope) => envelope.metadata !== undefined && envelope.metadata !== null);
	let total = 0;
	let unmarked = 0;
	const seen = new Set<string>();
	for (const envelope of listed) {
		const status = statusOfEnvelope(envelope);
		if (status !== null && NOTHING_MOVED.has(status)) continue;
		const metadata = envelope.metadata;
		const tagged = !!metadata && typeof metadata === 'object' && !Array.isArray(metadata) ? (metadata as IDataObject) : undefined;
		const agents = !listsMetadata || (metadata !== undefined && metadata !== null && !tagged) || tagged?.[AGENT_METADATA.verdict] !== undefined;
		if (!agents) continue;
		const key = tagged?.[AGENT_METADATA.key];
		const { amount } = amountOfEnvelope(envelope);
		if (amount === null) throw new Error(`the amount of ${String(envelope.reference ?? 'a listed transaction')} cannot be read`);
		if (!tagged) unmarked++;
		if (typeof key === 'string') seen.add(key);
		total += Math.abs(amount);
	}
	const references = new Set(listed.map((envelope) => envelope.reference));
	for (const send of own) if (send.key !== callKey && !seen.has(send.key) && !(send.reference && references.has(send.reference))) total += send.amount;
	return { total, unmarked };
}

/** The 24-hour window's start for the list read. */
const dayStart = (now: number): string => new Date(now - DAY_MS).toISOString();

/**
 * The refusal the model reads: what was refused and why, that nothing moved, and what to do
 * instead. Only an error's message reaches an agent in n8n, so all of it is in the message.
 */
function mandateRefusal(context: IExecuteFunctions, resource: TransactionResource, itemIndex: number, broken: string[], terms: MandateTerms, reviewMissing: boolean): NodeError {
	const instead =
		terms.beyond === 'review'
			? reviewMissing
				? "It can be paid only after a person approves this exact call in a Human review step in front of this tool (n8n 2.x; n8n 1.x has no Human review of tool calls); this call did not come through an approved review"
				: 'Ask for it to be approved'
			: 'Tell the user it needs a person: they can pay it themselves or raise the mandate';
	const message = `Refused by the agent mandate, nothing was ${resource === 'payout' ? 'paid' : 'charged'}: ${broken.join('; ')}. Do not call again with the same, a smaller or a split amount: for the rest of this execution every ${resource} involving this party is refused. ${instead}.`;
	return notSent(context.getNode(), itemIndex, message, 'The Money tool checks its agent mandate before anything is sent (docs/agents.md).', { details: { mandate_broken: broken } });
}

const FLOW_KEY = 'moneyAgent';

/** An agent's create of this execution, through any Money tool. */
interface AgentSend {
	key: string;
	/** The Money tool that sent it. */
	node: string;
	resource: TransactionResource;
	movement: string;
	amount: number;
	/** Counted until the API answers; `uncertain` stays counted. */
	outcome: 'under way' | 'accepted' | 'uncertain';
	reference?: string;
}

/**
 * What every Money tool of an execution shares (n8n's flow context, kept with the execution and
 * given back to a Retry): the anchor of the keys of calls without a Business Reference, the
 * agent's sends, parties refused beyond a mandate, and the approvals used.
 */
interface Shared {
	anchor?: string;
	sends?: AgentSend[];
	refusedParties?: string[];
	/** The tool node and key each approved review run was used for. */
	approvals?: Record<string, string>;
}

function sharedOf(context: IExecuteFunctions): Shared {
	const flow = context.getContext('flow');
	const shared = flow[FLOW_KEY];
	if (shared && typeof shared === 'object' && !Array.isArray(shared)) return shared as Shared;
	const fresh: Shared = {};
	flow[FLOW_KEY] = fresh as IDataObject;
	return fresh;
}

/** The execution's anchor of the keys of agent calls without a Business Reference: every Money tool of the execution keys the same payment alike. */
export function toolCallAnchor(context: IExecuteFunctions): string {
	return (sharedOf(context).anchor ??= randomUUID());
}

const turns = new WeakMap<object, Promise<unknown>>();

/**
 * Runs an agent's call after the calls of the same execution before it: the AI Agent before
 * version 3 runs the tool calls of one model turn at once, and each must see the ones before it
 * sent (the 24-hour total, a refused party, a used approval).
 */
export async function oneAtATime<T>(context: IExecuteFunctions, work: () => Promise<T>): Promise<T> {
	const owner = context.getContext('flow');
	const mine = (turns.get(owner) ?? Promise.resolve()).then(work, work);
	turns.set(owner, mine.catch(() => undefined));
	return await mine;
}

/** The mandate of a create the node runs as an agent's tool: each call decided before its request, its send recorded for the execution's later calls. */
export class Mandate {
	private readonly shared: Shared;

	constructor(
		private readonly context: IExecuteFunctions,
		private readonly resource: TransactionResource,
		/** The creates of the list from `since` on, read whole. */
		private readonly readSince: (since: string, itemIndex: number) => Promise<IDataObject[]>,
	) {
		this.shared = sharedOf(context);
	}

	/**
	 * The body to send under `key`, tagged, with its verdict; or why the call is refused.
	 * `uncertainUnderKey`: the key holds an earlier send with other values whose outcome is unknown.
	 */
	async decide(itemIndex: number, key: string, body: IDataObject, now: number, uncertainUnderKey = false): Promise<{ error: NodeError } | { body: IDataObject; verdict: MandateVerdict }> {
		const { context, resource, shared } = this;
		const node = context.getNode();
		const terms = mandateTermsOf(context, itemIndex);
		if (!('perPayment' in terms)) return { error: terms };
		const amount = body.amount as number;
		const party = partyKeyOf(resource, body);
		const broken = termsBroken(resource, terms, body, now);
		if (shared.refusedParties?.includes(party)) broken.push(`a ${resource} involving ${partyOf(resource, body)} was refused earlier in this execution`);
		if (uncertainUnderKey) broken.push('an earlier payment under this key (its Business Reference, or the same payment written another way), with other values, may have been made (its outcome is not known)');
		const movement = stableStringify(movementOf(resource, body));
		const others = (shared.sends ?? []).filter((send) => send.resource === resource && (send.key !== key || send.node !== node.name));
		const sends = others.filter((send) => send.key !== key);
		const same = others.find((send) => send.movement === movement || (send.key === key && send.outcome !== 'under way'));
		if (same) broken.push(`the same payment was made earlier in this execution (reference ${same.reference ?? 'not known yet'}); a second one needs a person`);
		let spent: Spending | undefined;
		if (terms.per24Hours > 0) {
			try {
				spent = spendingOf(await this.readSince(dayStart(now), itemIndex), sends, key);
			} catch (error) {
				const message = `Refused, nothing was ${resource === 'payout' ? 'paid' : 'charged'}: the total of the last 24 hours could not be read from the Money API (${(error as Error).message}). Try again later.`;
				return { error: notSent(node, itemIndex, message, 'The mandate counts the last 24 hours from the API before each agent create (docs/agents.md).') };
			}
			const day = dayLimitBroken(terms, amount, spent);
			if (day) broken.push(day);
		}
		const approvals = (shared.approvals ??= {});
		const taken = `${node.name}|${key}`;
		const review = approvalsOf(context, itemIndex).find((approval) => {
			const run = `${approval.node}#${approval.run}`;
			if (approvals[run] !== undefined && approvals[run] !== taken) return false;
			approvals[run] = taken;
			return true;
		});
		if (broken.length > 0 && !(review && terms.beyond === 'review')) {
			(shared.refusedParties ??= []).push(party);
			return { error: mandateRefusal(context, resource, itemIndex, broken, terms, terms.beyond === 'review') };
		}
		const verdict: MandateVerdict = {
			verdict: broken.length > 0 ? 'approved in review' : 'within mandate',
			spent_24h_before: spent?.total ?? null,
			spent_24h_after: spent ? spent.total + amount : null,
			limit_24h: terms.per24Hours > 0 ? terms.per24Hours : null,
			tool_call_id: toolCallIdOf(context, itemIndex),
			...(review ? { review: { ...review } } : {}),
			...(broken.length > 0 ? { beyond_mandate: broken } : {}),
		};
		const metadata: IDataObject = {
			...((body.metadata as IDataObject | undefined) ?? {}),
			[AGENT_METADATA.verdict]: verdict.verdict,
			[AGENT_METADATA.key]: key,
			...(verdict.tool_call_id ? { [AGENT_METADATA.call]: verdict.tool_call_id } : {}),
			...(spent ? { [AGENT_METADATA.spentBefore]: String(spent.total) } : {}),
			...(review ? { [AGENT_METADATA.review]: `${review.node} run ${review.run + 1}, approved at ${review.responded_at}` } : {}),
		};
		this.underWay(key, movement, amount);
		return { body: { ...body, metadata }, verdict };
	}

	/** The sends of this tool under a key as they were before its call was decided, to put back when nothing is sent. */
	private readonly before = new Map<string, AgentSend | undefined>();

	private indexOf(key: string): number {
		return (this.shared.sends ?? []).findIndex((send) => send.resource === this.resource && send.key === key && send.node === this.context.getNode().name);
	}

	/** A decided call about to be sent: counted from now on. */
	private underWay(key: string, movement: string, amount: number): void {
		const sends = (this.shared.sends ??= []);
		const index = this.indexOf(key);
		this.before.set(key, index >= 0 ? { ...sends[index] } : undefined);
		const send: AgentSend = { key, node: this.context.getNode().name, resource: this.resource, movement, amount, outcome: 'under way' };
		if (index >= 0) sends[index] = send;
		else sends.push(send);
	}

	/**
	 * What became of the send under `key`: accepted (with its reference) or uncertain stays counted;
	 * refused puts back what the key held before this call was decided (nothing, or an earlier send).
	 */
	record(key: string, outcome: 'accepted' | 'uncertain' | 'refused', reference?: string): void {
		const sends = (this.shared.sends ??= []);
		const index = this.indexOf(key);
		if (outcome === 'refused') {
			if (!this.before.has(key)) return;
			const earlier = this.before.get(key);
			if (earlier && index >= 0) sends[index] = earlier;
			else if (earlier) sends.push(earlier);
			else if (index >= 0) sends.splice(index, 1);
			return;
		}
		if (index < 0) return;
		sends[index] = { ...sends[index], outcome, ...(reference ? { reference } : {}) };
	}
}

/** The tool call the agent made, as n8n's engine hands it to the tool after the model's arguments (docs/agents.md); none on the older agents, where the input is the model's alone. */
function toolCallIdOf(context: IExecuteFunctions, itemIndex: number): string | null {
	if (!context.getExecuteData?.()?.source?.main?.[0]?.previousNode) return null;
	const id = context.getInputData()[itemIndex]?.json?.toolCallId;
	return typeof id === 'string' && id !== '' ? id : null;
}
