import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { PARTY_FIELD, type TransactionResource } from '../../../api/values';
import { statusOfEnvelope } from '../../../events/envelope';
import { type NodeError, notSent } from '../../../transport/errors';
import { fieldError } from '../validation';
import type { NodeMemory } from './memory';
import { approvalsOf } from './review';

/**
 * An AI agent's mandate on the Money tool (docs/agents.md): what a create the node runs as a tool
 * may move without a person, checked before any request. The 24-hour total is read from the API,
 * where every create the tool made carries AGENT_METADATA, so it holds across executions, restarts
 * and workers; this execution's own sends count until the list shows them.
 */

/** The metadata an agent's create carries: the verdict, the tool call, the 24-hour total before it, and its key. */
export const AGENT_METADATA = {
	verdict: 'n8n_agent_mandate',
	call: 'n8n_agent_tool_call',
	spentBefore: 'n8n_agent_spent_24h_before',
	key: 'n8n_agent_key',
	review: 'n8n_agent_review',
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

/** The terms of item `itemIndex`, or the field error of one that cannot be read. */
export function mandateTermsOf(context: IExecuteFunctions, itemIndex: number): MandateTerms | NodeError {
	const node = context.getNode();
	for (const [parameter, label] of MANDATE_PARAMETERS) {
		const configured = node.parameters[parameter];
		if (typeof configured === 'string' && /\bfromAI\s*\(/i.test(configured)) {
			const rule = 'is set by the person who gives the agent this tool, never by the model: replace the $fromAI() expression with a value';
			return fieldError(node, { parameter, label, field: parameter, rule }, itemIndex);
		}
	}
	const expiry = context.getNodeParameter('mandateExpiresInToolMode', itemIndex, '') as unknown;
	let expiresAt: number | undefined;
	if (expiry !== '' && expiry !== null && expiry !== undefined) {
		expiresAt = Date.parse(String(expiry));
		if (Number.isNaN(expiresAt)) {
			return fieldError(node, { parameter: 'mandateExpiresInToolMode', label: 'Mandate Expires', field: 'mandate expiry', rule: `must be a date and time (it read ${JSON.stringify(expiry)})` }, itemIndex);
		}
	}
	return {
		perPayment: Number(context.getNodeParameter('maxAmountInToolMode', itemIndex, 0)),
		per24Hours: Number(context.getNodeParameter('maxAmountPer24HoursInToolMode', itemIndex, 0)),
		parties: listOf(context.getNodeParameter('allowedPartiesInToolMode', itemIndex, '')),
		currencies: listOf(context.getNodeParameter('allowedCurrenciesInToolMode', itemIndex, [])),
		channels: listOf(context.getNodeParameter('allowedChannelsInToolMode', itemIndex, [])),
		expiresAt,
		beyond: context.getNodeParameter('beyondMandateInToolMode', itemIndex, 'refuse') === 'review' ? 'review' : 'refuse',
	};
}

export const partyOf = (resource: TransactionResource, body: IDataObject): string => String((body[PARTY_FIELD[resource]] as IDataObject | undefined)?.identifier ?? '');

/** The limits a call breaks that need no read, in the order a person would lift them, each naming the limit and the call's value. */
export function termsBroken(resource: TransactionResource, terms: MandateTerms, body: IDataObject, now: number): string[] {
	const broken: string[] = [];
	const amount = body.amount as number;
	if (terms.expiresAt !== undefined && now >= terms.expiresAt) broken.push(`the mandate expired at ${new Date(terms.expiresAt).toISOString()}`);
	if (terms.currencies.length > 0 && !terms.currencies.includes(String(body.currency))) broken.push(`currency ${String(body.currency)} is not one the mandate allows (${terms.currencies.join(', ')})`);
	if (terms.channels.length > 0 && !terms.channels.includes(String(body.channel))) broken.push(`channel ${String(body.channel)} is not one the mandate allows (${terms.channels.join(', ')})`);
	const party = partyOf(resource, body);
	if (terms.parties.length > 0 && !terms.parties.includes(party)) broken.push(`${party} is not among the mandate's allowed ${resource === 'payout' ? 'beneficiaries' : 'payers'}`);
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
 * rows carry it: fail toward paying less); and this execution's sends (`own`, by key) the list
 * does not show yet, an unacknowledged one included. The call's own key is left out of both.
 */
export function spendingOf(listed: IDataObject[], own: Array<{ key: string; amount: number }>, now: number, callKey: string): Spending {
	const listsMetadata = listed.some((envelope) => envelope.metadata !== undefined && envelope.metadata !== null);
	let total = 0;
	let unmarked = 0;
	const seen = new Set<string>();
	for (const envelope of listed) {
		const status = statusOfEnvelope(envelope);
		if (status !== null && NOTHING_MOVED.has(status)) continue;
		const createdAt = Date.parse(String(envelope.created_at ?? ''));
		if (!Number.isNaN(createdAt) && createdAt <= now - DAY_MS) continue;
		const amount = Math.abs(Number((envelope.amount as IDataObject | undefined)?.value ?? envelope.amount ?? 0)) || 0;
		const metadata = envelope.metadata as IDataObject | undefined;
		if (!listsMetadata) {
			unmarked++;
			total += amount;
		} else if (metadata && typeof metadata === 'object' && metadata[AGENT_METADATA.verdict] !== undefined) {
			const key = metadata[AGENT_METADATA.key];
			if (key === callKey) continue;
			if (typeof key === 'string') seen.add(key);
			total += amount;
		}
	}
	for (const send of own) if (send.key !== callKey && !seen.has(send.key)) total += send.amount;
	return { total, unmarked };
}

/** The 24-hour window's start for the list read. */
export const dayStart = (now: number): string => new Date(now - DAY_MS).toISOString();

/**
 * The refusal the model reads: what was refused and why, that nothing moved, and what to do
 * instead. Only an error's message reaches an agent in n8n, so all of it is in the message.
 */
export function mandateRefusal(context: IExecuteFunctions, resource: TransactionResource, itemIndex: number, broken: string[], terms: MandateTerms, reviewMissing: boolean): NodeError {
	const instead =
		terms.beyond === 'review'
			? reviewMissing
				? 'It can be paid only after a person approves this exact call in a Human review step in front of this tool; this call did not come through an approved review'
				: 'Ask for it to be approved'
			: 'Tell the user it needs a person: they can pay it themselves or raise the mandate';
	const message = `Refused by the agent mandate, nothing was ${resource === 'payout' ? 'paid' : 'charged'}: ${broken.join('; ')}. Do not call again with the same, a smaller or a split amount (splits are refused too). ${instead}.`;
	return notSent(context.getNode(), itemIndex, message, 'The Money tool checks its agent mandate before anything is sent (docs/agents.md).', { details: { mandate_broken: broken } });
}

const isAgentBody = (body: IDataObject): boolean => {
	const metadata = body.metadata;
	return !!metadata && typeof metadata === 'object' && (metadata as IDataObject)[AGENT_METADATA.verdict] !== undefined;
};

/** The mandate of a create the node runs as an agent's tool: each call decided before its request. */
export class Mandate {
	constructor(
		private readonly context: IExecuteFunctions,
		private readonly resource: TransactionResource,
		private readonly memory: NodeMemory,
		/** The creates of the list from `since` on, read whole. */
		private readonly readSince: (since: string, itemIndex: number) => Promise<IDataObject[]>,
	) {}

	/** The body to send under `key`, tagged, with its verdict; or why the call is refused. */
	async decide(itemIndex: number, key: string, body: IDataObject, now: number): Promise<{ error: NodeError } | { body: IDataObject; verdict: MandateVerdict }> {
		const { context, resource, memory } = this;
		const node = context.getNode();
		const terms = mandateTermsOf(context, itemIndex);
		if (!('perPayment' in terms)) return { error: terms };
		const amount = body.amount as number;
		const party = partyOf(resource, body);
		const broken = termsBroken(resource, terms, body, now);
		if (memory.refusedParty(party)) broken.push(`a ${resource} involving ${party} was refused earlier in this execution`);
		let spent: Spending | undefined;
		if (terms.per24Hours > 0) {
			let listed: IDataObject[];
			try {
				listed = await this.readSince(dayStart(now), itemIndex);
			} catch (error) {
				const message = `Refused, nothing was ${resource === 'payout' ? 'paid' : 'charged'}: the total of the last 24 hours could not be read from the Money API (${(error as Error).message}). Try again later.`;
				return { error: notSent(node, itemIndex, message, 'The mandate counts the last 24 hours from the API before each agent create (docs/agents.md).') };
			}
			const own = memory.sends().flatMap(([sentKey, sent]) => (isAgentBody(sent.body) && (sent.accepted ?? sent.uncertain) !== undefined ? [{ key: sentKey, amount: Number(sent.body.amount) || 0 }] : []));
			spent = spendingOf(listed, own, now, key);
			const day = dayLimitBroken(terms, amount, spent);
			if (day) broken.push(day);
		}
		const review = broken.length > 0 && terms.beyond === 'review' ? approvalsOf(context, itemIndex).find((approval) => memory.takeApproval(`${approval.node}#${approval.run}`, key)) : undefined;
		if (broken.length > 0 && !review) {
			memory.refusedParty(party, true);
			return { error: mandateRefusal(context, resource, itemIndex, broken, terms, terms.beyond === 'review') };
		}
		const verdict: MandateVerdict = {
			verdict: review ? 'approved in review' : 'within mandate',
			spent_24h_before: spent?.total ?? null,
			spent_24h_after: spent ? spent.total + amount : null,
			limit_24h: terms.per24Hours > 0 ? terms.per24Hours : null,
			tool_call_id: toolCallIdOf(context, itemIndex),
			...(review ? { review: { ...review }, beyond_mandate: broken } : {}),
		};
		const metadata: IDataObject = {
			...((body.metadata as IDataObject | undefined) ?? {}),
			[AGENT_METADATA.verdict]: verdict.verdict,
			[AGENT_METADATA.key]: key,
			...(verdict.tool_call_id ? { [AGENT_METADATA.call]: verdict.tool_call_id } : {}),
			...(spent ? { [AGENT_METADATA.spentBefore]: String(spent.total) } : {}),
			...(review ? { [AGENT_METADATA.review]: `${review.node} run ${review.run + 1}, approved at ${review.responded_at}` } : {}),
		};
		return { body: { ...body, metadata }, verdict };
	}
}

/** The tool call the agent made, as n8n hands it to the tool (docs/agents.md). */
function toolCallIdOf(context: IExecuteFunctions, itemIndex: number): string | null {
	const json = context.getInputData()[itemIndex]?.json ?? {};
	const id = json.toolCallId;
	return typeof id === 'string' && id !== '' ? id : null;
}

