/**
 * Workflow JSON for the end-to-end tier, built in code so node types and parameters live in one
 * place. Every Money parameter name used by the e2e tier is in `money` below: when a node's
 * parameters change, change them here.
 *
 * Types are those of a real Community Nodes install: `n8n-nodes-money.<node>`.
 */

import * as crypto from 'node:crypto';

import { MONEY_API_CREDENTIAL_TYPE } from '../../nodes/api/values';

/** A node of a workflow's JSON (`id` and `position` are filled in by chain()). */
export interface WorkflowNode {
	name: string;
	type: string;
	typeVersion: number;
	parameters: Record<string, any>;
	[field: string]: any;
}

/** A workflow's JSON, as n8n imports it. */
export interface Workflow {
	id: string;
	name: string;
	active: boolean;
	nodes: WorkflowNode[];
	connections: Record<string, any>;
	settings: Record<string, any>;
	pinData?: Record<string, any>;
	[field: string]: any;
}

export interface CredentialRef {
	id: string;
	name: string;
}

export const PACK = 'n8n-nodes-money';
export const TYPES = {
	money: `${PACK}.money`,
	/** The Money node as an AI agent's tool: n8n makes a `<node>Tool` type of each node that is usableAsTool. */
	moneyTool: `${PACK}.moneyTool`,
	moneyTrigger: `${PACK}.moneyTrigger`,
	moneyPollTrigger: `${PACK}.moneyPollTrigger`,
	manualTrigger: 'n8n-nodes-base.manualTrigger',
	set: 'n8n-nodes-base.set',
	splitOut: 'n8n-nodes-base.splitOut',
	webhook: 'n8n-nodes-base.webhook',
	httpRequest: 'n8n-nodes-base.httpRequest',
};
export const CREDENTIAL_TYPE = MONEY_API_CREDENTIAL_TYPE;

/** The credential every Money node of these workflows uses (imported by scripts/e2e.ts). */
export const CREDENTIAL: CredentialRef = { id: 'e2eMoneyCred0000001', name: 'Money sandbox (e2e)' };

export function credentialRef(cred: CredentialRef = CREDENTIAL) {
	return { [CREDENTIAL_TYPE]: { id: cred.id, name: cred.name } };
}

// ---------------------------------------------------------------------------------------------
// Nodes
// ---------------------------------------------------------------------------------------------

export const node = {
	manualTrigger: (name = 'Start'): WorkflowNode => ({ name, type: TYPES.manualTrigger, typeVersion: 1, parameters: {} }),

	/** A Code node "Count Runs" that writes the workflow's static data, as a user's run counter would. */
	staticDataCounter: (): WorkflowNode => ({
		name: 'Count Runs',
		type: 'n8n-nodes-base.code',
		typeVersion: 2,
		parameters: { jsCode: "const data = $getWorkflowStaticData('global');\ndata.runs = (data.runs || 0) + 1;\nreturn $input.all();" },
	}),

	/** Set node: `fields` {name: value|expression}; strings only unless typed as [value, type]. */
	set: (name: string, fields: Record<string, unknown>, { includeOtherFields = false } = {}): WorkflowNode => ({
		name,
		type: TYPES.set,
		typeVersion: 3.4,
		parameters: {
			assignments: {
				assignments: Object.entries(fields).map(([field, v], i) => {
					const [value, type] = Array.isArray(v) ? v : [v, typeof v === 'number' ? 'number' : typeof v === 'boolean' ? 'boolean' : 'string'];
					return { id: `f${i}`, name: field, value, type };
				}),
			},
			includeOtherFields,
			options: {},
		},
	}),

	/** Set node in raw mode: outputs `json` (an object) as one item. */
	rawJson: (name: string, json: unknown): WorkflowNode => ({ name, type: TYPES.set, typeVersion: 3.4, parameters: { mode: 'raw', jsonOutput: JSON.stringify(json), options: {} } }),

	/** Split Out: one item per element of the list in `field`. */
	splitOut: (name: string, field: string): WorkflowNode => ({ name, type: TYPES.splitOut, typeVersion: 1, parameters: { fieldToSplitOut: field, options: {} } }),

	/** Webhook node answering at once; production URL /webhook/<path> once the workflow is active. */
	webhook: (name: string, path: string, webhookId: string): WorkflowNode => ({
		name,
		type: TYPES.webhook,
		typeVersion: 2,
		parameters: { httpMethod: 'POST', path, responseMode: 'onReceived', options: {} },
		webhookId,
	}),

	/** Money node: `parameters` from the `money` builders below. */
	money: (name: string, parameters: Record<string, any>, { cred, continueOnFail = false }: { cred?: CredentialRef; continueOnFail?: boolean } = {}): WorkflowNode => ({
		name,
		type: TYPES.money,
		typeVersion: 1,
		parameters,
		credentials: credentialRef(cred),
		...(continueOnFail ? { onError: 'continueRegularOutput' } : {}),
	}),

	/**
	 * HTTP Request node with the `Money API` predefined credential type.
	 * url: absolute; query: {name: value}.
	 */
	httpRequestMoney: (
		name: string,
		{ method = 'GET', url, query = {} }: { method?: string; url: string; query?: Record<string, unknown> },
		{ cred }: { cred?: CredentialRef } = {},
	): WorkflowNode => ({
		name,
		type: TYPES.httpRequest,
		typeVersion: 4.2,
		parameters: {
			method,
			url,
			authentication: 'predefinedCredentialType',
			nodeCredentialType: CREDENTIAL_TYPE,
			sendQuery: Object.keys(query).length > 0,
			queryParameters: { parameters: Object.entries(query).map(([k, v]) => ({ name: k, value: String(v) })) },
			options: {},
		},
		credentials: credentialRef(cred),
	}),

	/** Money Trigger (webhook). webhookId fixes the production URL: /webhook/<webhookId>/<path>. */
	moneyTrigger: (name: string, parameters: Record<string, any>, { webhookId, cred }: { webhookId?: string; cred?: CredentialRef } = {}): WorkflowNode => ({
		name,
		type: TYPES.moneyTrigger,
		typeVersion: 2,
		parameters,
		credentials: credentialRef(cred),
		webhookId,
	}),
};

// ---------------------------------------------------------------------------------------------
// Money node parameters (as in nodes/Money/actions/**)
// ---------------------------------------------------------------------------------------------

/** What money.create() takes: `identifier`, `identifierType` and `accountType` are the party's (payer or beneficiary). */
export interface CreateFields {
	amount: number | string;
	currency?: string;
	identifierType?: string;
	identifier: string;
	channel?: string;
	accountType?: string;
	businessReference?: string;
	/**
	 * Off unless told when no Business Reference is given: the checks of what a create without one
	 * does (Retry, crash, cancel, re-runs) run it in production executions, as a user who turned the
	 * requirement off does; the requirement itself has checks of its own (`requireBusinessReference: true`).
	 */
	requireBusinessReference?: boolean;
	additionalFields?: Record<string, unknown>;
	options?: Record<string, unknown>;
}

/** The parameter names of the party of a create (each party has its own). */
const PARTY_PREFIX: Record<string, string> = { charge: 'payer', payout: 'beneficiary' };

export const money = {
	/** Create a charge or payout. */
	create: (resource: string, c: CreateFields) => ({
		resource,
		operation: 'create',
		amount: c.amount,
		currency: c.currency || 'XOF',
		[`${PARTY_PREFIX[resource]}IdentifierType`]: c.identifierType || 'gm_account',
		[`${PARTY_PREFIX[resource]}Identifier`]: c.identifier,
		channel: c.channel || 'psp-a-tg',
		...(c.accountType !== undefined ? { [`${PARTY_PREFIX[resource]}AccountType`]: c.accountType } : {}),
		...(c.businessReference ? { businessReference: c.businessReference } : {}),
		requireBusinessReference: c.requireBusinessReference ?? Boolean(c.businessReference),
		additionalFields: c.additionalFields || {},
		options: c.options || {},
	}),
	/** Get one charge/payout; reference may be an expression like '={{ $json.reference }}'. */
	get: (resource: string, reference: string, options = {}) => ({ resource, operation: 'get', reference, options }),
	/** Get many; returnAll true or a limit. */
	getAll: (resource: string, { returnAll = false, limit = 50, filters = {}, options = {} } = {}) => ({
		resource,
		operation: 'getAll',
		returnAll,
		...(returnAll ? {} : { limit }),
		filters,
		options,
	}),
	/** Transaction details by payment identifier or unique_id. */
	transactionGet: (transactionId: string, options = {}) => ({ resource: 'transaction', operation: 'get', transactionId, options }),
	accountGet: (options = {}) => ({ resource: 'account', operation: 'get', options }),
};

/** Money Trigger parameters (as in nodes/MoneyTrigger). */
export const moneyTriggerParams = ({ resources = ['charge', 'payout'], statuses = ['CANCELLED', 'COMPLETED', 'FAILED', 'REVERSED'], options = {} } = {}) => ({
	resources,
	statuses,
	channels: [],
	confirmWithApi: false,
	options,
});
/** The `path` of the Money Trigger's webhook description. */
export const MONEY_TRIGGER_PATH = 'money';

// ---------------------------------------------------------------------------------------------
// Workflows
// ---------------------------------------------------------------------------------------------

/**
 * A linear workflow: nodes connected in order (first is the trigger). Ids are at most 21
 * characters (n8n's limit); node ids and positions are filled in.
 */
export function chain(id: string, name: string, nodes: WorkflowNode[]): Workflow {
	if (id.length > 21) throw new Error(`workflow id ${id} is longer than 21 characters`);
	const full = nodes.map((n, i) => ({ id: `${id}-n${i}`, position: [i * 220, 0], ...n }));
	const connections: Record<string, any> = {};
	for (let i = 0; i + 1 < full.length; i++) {
		connections[full[i].name] = { main: [[{ node: full[i + 1].name, type: 'main', index: 0 }]] };
	}
	return { id, name, active: false, nodes: full, connections, settings: { executionOrder: 'v1' }, pinData: {} };
}

/**
 * A Money Trigger on completed charges → Set node "Received", and an unconnected Money Poll Trigger
 * "Backstop" set as its backstop (docs/webhook-memory.md, the backstop), polling every minute and
 * re-checking up to 1,000 PENDING charges a poll. `backstopFor`: the trigger name it is given.
 */
export function moneyTriggerWithBackstop(
	id: string,
	name: string,
	webhookId: string,
	{ graceMinutes, backstopFor = 'Money Trigger', confirmWithApi = false }: { graceMinutes: number; backstopFor?: string; confirmWithApi?: boolean },
): Workflow {
	const workflow = chain(id, name, [
		node.moneyTrigger('Money Trigger', { ...moneyTriggerParams({ resources: ['charge'], statuses: ['COMPLETED'] }), ...(confirmWithApi ? { confirmWithApi } : {}) }, { webhookId }),
		node.set('Received', { received: 'yes' }, { includeOtherFields: true }),
	]);
	workflow.nodes.push({
		id: `${id}-poll`,
		name: 'Backstop',
		type: TYPES.moneyPollTrigger,
		typeVersion: 1,
		position: [0, 300],
		parameters: {
			pollTimes: { item: [{ mode: 'everyMinute' }] },
			resource: 'charge',
			statuses: ['COMPLETED'],
			channels: [],
			backstop: true,
			moneyTrigger: backstopFor,
			gracePeriodMinutes: graceMinutes,
			options: { maxChecksPerPoll: 1000 },
		},
		credentials: credentialRef(),
	});
	return workflow;
}

/** A uuid-shaped webhook id, stable per name (so URLs are predictable). */
export function webhookIdFor(name: string): string {
	const hex = crypto.createHash('sha256').update(name).digest('hex');
	return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
