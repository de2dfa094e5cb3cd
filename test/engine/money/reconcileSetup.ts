import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { PARTY_PARAMETERS } from '../../../nodes/Money/helpers/validation';
import { startSandbox, type Sandbox } from '../../../sandbox';
import { CREDENTIAL_ID, CREDENTIAL_TYPE, credentialFromSandbox, type Engine, loadEngine, type RunResult, runMoneyNode } from '../../harness/engine';
import { findSecrets } from '../../harness/secrets';

/**
 * What the Reconcile engine tests share: the engine once per file, a sandbox per test (so the
 * period holds exactly the transactions the test made), creates through the Money node, and a
 * Reconcile run read back as its four outputs.
 */

export const FAST = { maxRetries: 1, retryBaseDelayMs: 2 };
const OUTPUTS = ['matched', 'mismatched', 'missing', 'unexpected'] as const;
type OutputName = (typeof OUTPUTS)[number];

export interface Order {
	order?: string;
	amount: number;
	status?: 'COMPLETED' | 'FAILED' | 'CANCELLED';
}

export interface Outputs extends Record<OutputName, IDataObject[]> {
	result: RunResult;
	items: INodeExecutionData[][];
}

export const RECORD_FIELDS = {
	referenceField: 'reference',
	businessReferenceField: 'order',
	amountField: 'amount',
	currencyField: 'currency',
};

export const aroundNow = () => ({
	createdAfter: new Date(Date.now() - 60_000).toISOString(),
	createdBefore: new Date(Date.now() + 60_000).toISOString(),
});

export const verdict = (item: IDataObject) => item.reconciliation as IDataObject;
/** The lines of the Report's CSV file. */
export const csvLines = (summary: INodeExecutionData) => Buffer.from(summary.binary!.data.data, 'base64').toString('utf8').split('\r\n');
export const differences = (item: IDataObject) => verdict(item).differences as IDataObject[];
export const orderOf = (item: IDataObject) => (item.record as IDataObject).order;
/** The lines n8n shows above the Money node's output (its execution hints). */
export const hintsOf = (result: RunResult): string[] => ((result.run.data.resultData.runData.Money?.[0]?.hints ?? []) as Array<{ message: string }>).map((hint) => hint.message);

export function useReconcile() {
	const env = {} as { engine: Engine; sb: Sandbox };

	beforeAll(async () => {
		env.engine = await loadEngine();
	});
	beforeEach(async () => {
		env.sb = await startSandbox({ finalizeAfterMs: null });
		env.engine.credentials.set(CREDENTIAL_ID, CREDENTIAL_TYPE, credentialFromSandbox(env.sb.info));
	});
	afterEach(async () => {
		await env.sb?.close();
	});

	/** Creates transactions through the Money node (so creates stamp their Business Reference), then settles them. */
	async function create(resource: 'charge' | 'payout', orders: Order[]): Promise<string[]> {
		const result = await runMoneyNode(env.engine, {
			parameters: {
				resource,
				operation: 'create',
				amount: '={{ $json.amount }}',
				currency: 'XOF',
				[PARTY_PARAMETERS[resource].identifierType]: 'gm_account',
				[PARTY_PARAMETERS[resource].identifier]: resource === 'charge' ? 'GM-1001' : 'GM-1002',
				channel: 'psp-a-tg',
				[PARTY_PARAMETERS[resource].accountType]: '',
				businessReference: orders.every((order) => order.order) ? '={{ $json.order }}' : '',
				options: FAST,
			},
			items: orders.map((order) => ({ json: { ...order } })),
		});
		expect(result.error()).toBeUndefined();
		const references = result.output('Money').map((item) => item.json.reference as string);
		for (const [index, order] of orders.entries()) {
			if (order.status) await env.sb.control.setStatus(references[index], order.status);
		}
		return references;
	}

	async function reconcile(
		records: IDataObject[],
		period: { createdAfter: string; createdBefore: string },
		options: IDataObject = {},
		resource: 'charge' | 'payout' = 'charge',
		fields: IDataObject = {},
	): Promise<Outputs> {
		const result = await runMoneyNode(env.engine, {
			parameters: {
				resource,
				operation: 'reconcile',
				...period,
				...RECORD_FIELDS,
				...fields,
				options: { ...FAST, defaultCurrency: 'XOF', ...options },
			},
			items: records.map((json) => ({ json })),
		});
		expect(result.error()).toBeUndefined();
		const { info } = env.sb;
		expect(findSecrets(result.run, { pin: info.pin, clientSecret: info.clientSecret, hmacSecret: info.hmacSecret })).toEqual([]);
		const items = OUTPUTS.map((_, index) => result.output('Money', index));
		const json = (index: number) => items[index].map((item) => item.json);
		return { result, items, matched: json(0), mismatched: json(1), missing: json(2), unexpected: json(3) };
	}

	return { env, create, reconcile };
}
