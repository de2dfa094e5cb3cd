import type { ICredentialDataDecryptedObject, IDataObject, IExecuteFunctions, INode } from 'n8n-workflow';

import { type CreateRow, readRows } from '../../../../../nodes/Money/helpers/create/rows';
import { expectEditorFinds } from '../../../support/properties';

const node: INode = { id: 'n1', name: 'Pay', type: 'n8n-nodes-money.money', typeVersion: 1, position: [0, 0], parameters: {} };
const PAYOUT: IDataObject = { amount: 5000, currency: 'XOF', beneficiaryIdentifierType: 'gm_account', beneficiaryIdentifier: 'GM-1002', channel: 'platform' };

/**
 * What readRows reads of n8n: one payout row per entry of `items` (its parameters as n8n resolves
 * them for that item, an Error where the expression fails), `configured` the node's parameters as saved.
 */
function nodeRun(items: IDataObject[], configured: IDataObject = {}): IExecuteFunctions {
	return {
		getInputData: () => items.map(() => ({ json: {} })),
		getNode: () => ({ ...node, parameters: configured }),
		getNodeParameter: (name: string, itemIndex: number, fallback?: unknown) => {
			const value = { ...PAYOUT, ...items[itemIndex] }[name];
			if (value instanceof Error) throw value;
			return value === undefined ? fallback : value;
		},
	} as unknown as IExecuteFunctions;
}

async function rowsOf(items: IDataObject[], configured?: IDataObject, credentials: ICredentialDataDecryptedObject = { walletPinSecret: '1234' }): Promise<CreateRow[]> {
	return await readRows(nodeRun(items, configured), 'payout', credentials);
}

const metadata = (entries: Array<[string, string]>) => ({ metadata: { entries: entries.map(([key, value]) => ({ key, value })) } });

describe('the Business Reference in the metadata of the create body', () => {
	it('is added beside the user metadata, and only when a Business Reference is set', async () => {
		const [beside, bare, none] = await rowsOf([
			{ businessReference: 'ord-1', additionalFields: metadata([['team', 'east']]) },
			{ businessReference: 'ord-2' },
			{ additionalFields: metadata([['n8n_business_reference', 'set-by-hand']]) },
		]);
		expect(beside.body?.metadata).toEqual({ team: 'east', n8n_business_reference: 'ord-1' });
		expect(bare.body?.metadata).toEqual({ n8n_business_reference: 'ord-2' });
		expect(none.body?.metadata).toEqual({ n8n_business_reference: 'set-by-hand' });
	});

	it('refuses a user entry under the same key with another value, and accepts the same value', async () => {
		const [other, same] = await rowsOf([
			{ businessReference: 'ord-9', additionalFields: metadata([['n8n_business_reference', 'ord-8']]) },
			{ businessReference: 'ord-9', additionalFields: metadata([['n8n_business_reference', 'ord-9']]) },
		]);
		expect(other.body).toBeUndefined();
		expect(other.error?.message).toBe('Metadata (metadata.n8n_business_reference) is where the node stores the Business Reference: remove this entry or give it the same value as Business Reference');
		expect(other.error?.context).toMatchObject({ attempted: false, itemIndex: 0, parameter: 'additionalFields.metadata', field: 'metadata.n8n_business_reference' });
		expect(same.error).toBeUndefined();
		expect(same.body?.metadata).toEqual({ n8n_business_reference: 'ord-9' });
	});

	it('names the parameter of that metadata entry so the editor finds it', async () => {
		const [row] = await rowsOf([{ businessReference: 'order-1', additionalFields: metadata([['n8n_business_reference', 'other']]) }]);
		const { parameter, field } = row.error?.context as { parameter: string; field: string };
		const label = 'Metadata';
		const rule = String(row.error?.message).slice(`${label} (${field}) `.length);
		expectEditorFinds({ parameter, label, field, rule }, 'payout', 'create');
	});
});

describe('the Business Reference a row gives', () => {
	it('is the value trimmed, a safe integer as text; nothing set is none', async () => {
		const rows = await rowsOf([{ businessReference: ' order-1 ' }, { businessReference: 1045 }, {}]);
		expect(rows.map((row) => [row.reference, row.businessReference])).toEqual([
			[{ kind: 'reference', value: 'order-1' }, 'order-1'],
			[{ kind: 'reference', value: '1045' }, '1045'],
			[{ kind: 'none' }, ''],
		]);
	});

	it('is not a reference when only whitespace, a number beyond exact integers, or an expression that gave nothing: the row has none', async () => {
		const rows = await rowsOf([{ businessReference: '   ' }, { businessReference: 2 ** 53 + 2 }, { businessReference: '' }], { businessReference: '={{ $json.order }}' });
		expect(rows.map((row) => [row.reference.kind, row.businessReference])).toEqual([
			['whitespace', ''],
			['inexactNumber', ''],
			['empty', ''],
		]);
		expect(rows.every((row) => row.error === undefined)).toBe(true);
	});

	it('fails the row with the error of an expression that cannot be read', async () => {
		const [row] = await rowsOf([{ businessReference: new Error('Referenced node is unexecuted') }]);
		expect(row.reference.kind).toBe('unreadable');
		expect(row.body).toBeUndefined();
		expect(row.error?.message).toBe('Referenced node is unexecuted');
		expect(row.error?.context.itemIndex).toBe(0);
	});
});

describe('each row read once', () => {
	it("takes the PIN from the node's Wallet PIN option, else the credential's; without either the row fails naming the option", async () => {
		const [own, fromCredential] = await rowsOf([{ options: { walletPin: '9999' } }, {}]);
		expect([own.pin, fromCredential.pin]).toEqual(['9999', '1234']);
		const [missing] = await rowsOf([{}], {}, {});
		expect(missing.body).toBeUndefined();
		expect(missing.error?.message).toMatch(/^Wallet PIN \(pin\) is missing/);
		expect(missing.error?.context).toMatchObject({ attempted: false, parameter: 'options' });
	});

	it('keeps a row that breaks a field rule, with its error, its Business Reference and its settings', async () => {
		const [row] = await rowsOf([{ amount: 0, businessReference: 'order-1', options: { maxRetries: 1 } }]);
		expect(row.body).toBeUndefined();
		expect(row.error?.message).toMatch(/^Amount \(amount\)/);
		expect(row.businessReference).toBe('order-1');
		expect(row.call.retry.maxRetries).toBe(1);
	});

	it('gives the body without the PIN, and the Preview Only value of each row', async () => {
		const [row] = await rowsOf([{ preview: true }]);
		expect(row.body).toEqual({ amount: 5000, currency: 'XOF', beneficiary_identifier: { identifier: 'GM-1002', type: 'gm_account' }, channel: 'platform' });
		expect(row.preview).toBe(true);
	});
});
