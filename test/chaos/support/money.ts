import type { IDataObject, INodeExecutionData, INodeParameters, INodeType } from 'n8n-workflow';

import { PARTY_PARAMETERS } from '../../../nodes/Money/helpers/validation';
import { startSandbox, type LedgerTransaction, type Sandbox } from '../../../sandbox';
import {
	CREDENTIAL_ID,
	CREDENTIAL_TYPE,
	credentialFromSandbox,
	type Engine,
	loadEngine,
	MONEY_NODE,
	type RunResult,
} from '../../harness/engine';
import { accepted } from '../../harness/outcome';
import type { FixedSecrets } from './capture';

export type Resource = 'charge' | 'payout';
export const RESOURCES: Resource[] = ['charge', 'payout'];
export const CREATE_SLUG: Record<Resource, string> = { charge: 'post_money_v1_charge', payout: 'post_money_v1_payout' };

/** A PIN that cannot be confused with amounts, counts or ids in the scanned text. */
export const CHAOS_PIN = '90817263';
export const START_BALANCE = 1_000_000_000_000;

/** Items per resource in the exactly-once scenarios; CHAOS_COUNT=100 for a quick local run. */
export const CHAOS_COUNT = Math.max(10, Number(process.env.CHAOS_COUNT ?? 1000) || 1000);

export function fixedSecrets(sb: Sandbox): FixedSecrets {
	return {
		clientSecret: sb.info.clientSecret,
		apiKey: sb.info.apiKey,
		hmacSecret: sb.info.hmacSecret,
		webhookSecret: sb.info.webhookSecret,
		pin: sb.info.pin,
	};
}

/** A fresh sandbox (own ledger and counters) with limits and balance raised for a bulk run. */
export async function startChaosSandbox(seed: number): Promise<Sandbox> {
	const sb = await startSandbox({ finalizeAfterMs: null, config: { seed, clients: [{ pin: CHAOS_PIN }] } });
	await sb.control.updateClient(sb.info.clientId, {
		limits: {
			minAmount: 1,
			maxAmount: 1_000_000_000,
			dailyCap: 1_000_000_000_000_000,
			monthlyCap: 1_000_000_000_000_000,
			velocityLimit: 1_000_000_000,
		},
		balance: START_BALANCE,
	});
	return sb;
}

export async function loadChaosEngine(sb: Sandbox): Promise<Engine> {
	const engine = await loadEngine();
	engine.credentials.set(CREDENTIAL_ID, CREDENTIAL_TYPE, credentialFromSandbox(sb.info, { velocityLimit: 1_000_000_000 }));
	return engine;
}

/**
 * Faults on both create routes, as the issue asks: 10 % dropped after commit, 5 % 503, 5 % 429
 * (of all creates: the sandbox takes the first fault that fires, so the later rates are scaled),
 * and the token revoked every 100 authenticated calls. Retry-After is 0 so runs stay fast.
 */
export async function injectCreateFaults(sb: Sandbox): Promise<void> {
	await sb.control.clearFaults();
	for (const resource of RESOURCES) {
		const route = CREATE_SLUG[resource];
		await sb.control.addFault({ route, kind: 'drop-after-commit', rate: 0.1 });
		await sb.control.addFault({ route, kind: '503', rate: 0.05 / 0.9 });
		await sb.control.addFault({ route, kind: '429', rate: 0.05 / 0.85, retryAfterSeconds: 0 });
	}
	await sb.control.setRevokeEvery(100);
}

export interface Order extends IDataObject {
	orderId: string;
	amount: number;
	identifierType: string;
	identifier: string;
	channel: string;
	accountType: string;
	message: string;
}

const PARTIES: Array<Pick<Order, 'identifierType' | 'identifier' | 'accountType'>> = [
	{ identifierType: 'gm_account', identifier: 'GM-1001', accountType: '' },
	{ identifierType: 'phone', identifier: '+22890000001', accountType: 'Client' },
	{ identifierType: 'gm_account', identifier: 'GM-1002', accountType: 'Driver' },
	{ identifierType: 'phone', identifier: '+22890000002', accountType: 'Driver' },
	{ identifierType: 'gm_account', identifier: 'GM-1003', accountType: '' },
];
const CHANNELS = ['platform', 'psp-a-tg', 'psp-b-tg'];

/** Deterministic, varied orders: amounts, parties and channels differ from item to item. */
export function makeOrders(resource: Resource, count: number, tag: string): Order[] {
	return Array.from({ length: count }, (_, index) => ({
		orderId: `${tag}-${resource}-${String(index).padStart(5, '0')}`,
		amount: 100 + ((index * 7919) % 50_000),
		...PARTIES[index % PARTIES.length],
		channel: CHANNELS[Math.floor(index / PARTIES.length) % CHANNELS.length],
		message: `chaos ${resource} ${index}`,
	}));
}

export function createParameters(
	resource: Resource,
	options: IDataObject,
	businessReference = '',
): INodeParameters {
	return {
		resource,
		operation: 'create',
		amount: '={{ $json.amount }}',
		currency: 'XOF',
		[PARTY_PARAMETERS[resource].identifierType]: '={{ $json.identifierType }}',
		[PARTY_PARAMETERS[resource].identifier]: '={{ $json.identifier }}',
		channel: '={{ $json.channel }}',
		[PARTY_PARAMETERS[resource].accountType]: '={{ $json.accountType }}',
		businessReference,
		requireBusinessReference: false,
		additionalFields: { message: '={{ $json.message }}' },
		options,
	} as INodeParameters;
}

export function itemsOf(orders: Order[]): INodeExecutionData[] {
	return orders.map((order) => ({ json: { ...order } }));
}

/** Output items of the Money node, placed at the index of the input item they belong to. */
export function outputsByItem(result: RunResult, count: number, nodeName = 'Money'): Array<IDataObject | undefined> {
	const placed: Array<IDataObject | undefined> = new Array(count).fill(undefined);
	result.output(nodeName).forEach((item, position) => {
		const paired = item.pairedItem;
		const index = typeof paired === 'object' && paired !== null && !Array.isArray(paired) ? paired.item : position;
		placed[index] = item.json;
	});
	return placed;
}

/** Runs `tasks` with at most `limit` in flight, keeping their order in the results. */
export async function pool<T>(tasks: Array<() => Promise<T>>, limit: number): Promise<T[]> {
	const results: T[] = new Array(tasks.length);
	let next = 0;
	const worker = async () => {
		while (next < tasks.length) {
			const index = next++;
			results[index] = await tasks[index]();
		}
	};
	await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
	return results;
}

export function chunk<T>(values: T[], size: number): T[][] {
	const chunks: T[][] = [];
	for (let start = 0; start < values.length; start += size) chunks.push(values.slice(start, start + size));
	return chunks;
}

/** Counts how often n8n calls the Money node's execute() (each Retry On Fail try is one call). */
export function countNodeRuns(engine: Engine): { calls: () => number; restore: () => void } {
	const nodeType = engine.nodeTypes.getByNameAndVersion(MONEY_NODE, 1) as INodeType;
	const spy = jest.spyOn(nodeType as Required<Pick<INodeType, 'execute'>>, 'execute');
	return { calls: () => spy.mock.calls.length, restore: () => spy.mockRestore() };
}

export interface LedgerCheck {
	created: number;
	distinctKeys: number;
	duplicateKeys: number;
	duplicateReferences: number;
	mismatches: string[];
}

/**
 * Compares node outputs with the ledger: every output is a success whose reference is in the
 * ledger with the item's amount and the output's idempotency key, and no key or reference
 * appears twice.
 */
export function checkAgainstLedger(
	resource: Resource,
	orders: Order[],
	outputs: Array<IDataObject | undefined>,
	entries: LedgerTransaction[],
): LedgerCheck {
	const byReference = new Map(entries.map((entry) => [entry.reference, entry]));
	const keys = new Map<string, number>();
	for (const entry of entries) keys.set(String(entry.idempotency_key), (keys.get(String(entry.idempotency_key)) ?? 0) + 1);
	const mismatches: string[] = [];
	const seenReferences = new Map<string, number>();
	outputs.forEach((output, index) => {
		const order = orders[index];
		if (!output || !accepted(output) || typeof output.reference !== 'string') {
			mismatches.push(`${order.orderId}: no success output (${JSON.stringify(output ?? null).slice(0, 200)})`);
			return;
		}
		seenReferences.set(output.reference, (seenReferences.get(output.reference) ?? 0) + 1);
		const entry = byReference.get(output.reference);
		if (!entry) {
			mismatches.push(`${order.orderId}: reference ${output.reference} not in the ledger`);
			return;
		}
		const sign = resource === 'payout' ? -1 : 1;
		if (entry.amount.value !== sign * order.amount) mismatches.push(`${order.orderId}: ledger amount ${entry.amount.value}, item ${order.amount}`);
		if (entry.idempotency_key !== output.idempotency_key) mismatches.push(`${order.orderId}: ledger key ${entry.idempotency_key}, output key ${String(output.idempotency_key)}`);
		if (entry.counterpart_account.identifier !== order.identifier) mismatches.push(`${order.orderId}: ledger counterpart ${entry.counterpart_account.identifier}`);
	});
	return {
		created: entries.length,
		distinctKeys: keys.size,
		duplicateKeys: [...keys.values()].filter((count) => count > 1).length + (keys.has('null') ? 1 : 0),
		duplicateReferences: [...seenReferences.values()].filter((count) => count > 1).length,
		mismatches,
	};
}

export function sum(values: number[]): number {
	return values.reduce((total, value) => total + value, 0);
}
