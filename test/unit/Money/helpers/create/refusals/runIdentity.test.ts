import type { IDataObject, IExecuteFunctions, INode } from 'n8n-workflow';

import type { OperationContext } from '../../../../../../nodes/Money/actions/node.type';
import { runIdentityRefusal } from '../../../../../../nodes/Money/helpers/create/refusals/runIdentity';

const node: INode = { id: 'n1', name: 'Pay', type: 'n8n-nodes-money.money', typeVersion: 1, position: [0, 0], parameters: { businessReference: '={{ $json.order }}' } };

/** One run of the node (run index `runIndex`) over `references` (undefined: the expression gave nothing), its context as n8n stores it. */
function nodeRun(nodeContext: IDataObject, references: Array<string | undefined>, runIndex = 0): IExecuteFunctions {
	return {
		getNode: () => node,
		getInputData: () => references.map(() => ({ json: {} })),
		getNodeParameter: (_name: string, itemIndex: number) => references[itemIndex] ?? '',
		getContext: () => nodeContext,
		getWorkflowDataProxy: () => ({ $thisRunIndex: runIndex }),
	} as unknown as IExecuteFunctions;
}

function operation(clientId: string): OperationContext {
	return { credential: async () => ({ id: 'c', name: 'c', type: 'moneyApi', data: { clientId, baseUrl: 'https://api.example.com' } }) } as unknown as OperationContext;
}

/** The context as a Retry gets it back: through the database, as JSON. */
const stored = (context: IDataObject) => JSON.parse(JSON.stringify(context)) as IDataObject;

describe('a run keeps the API client and Business References of its first run', () => {
	it('records them at the first run and lets every run that repeats them go', async () => {
		const first: IDataObject = {};
		expect(await runIdentityRefusal(nodeRun(first, ['A', undefined]), 'payout', 0, operation('c1'))).toBeUndefined();
		expect(await runIdentityRefusal(nodeRun(stored(first), ['A', undefined]), 'payout', 1, operation('c1'))).toBeUndefined();
		// Another run index (the next batch of a loop) is another run: it records its own.
		expect(await runIdentityRefusal(nodeRun(first, ['B'], 1), 'payout', 0, operation('c2'))).toBeUndefined();
	});

	it('refuses a repeat sent to another API client, naming both, before any request', async () => {
		const first: IDataObject = {};
		await runIdentityRefusal(nodeRun(first, ['A']), 'payout', 0, operation('c1'));
		const refusal = await runIdentityRefusal(nodeRun(stored(first), ['A']), 'payout', 0, operation('c2'));
		expect(refusal?.message).toBe(
			'Not sent: this run of the node is repeated with another identity than its first run in this execution: the credential now goes to the Money API client c2 at https://api.example.com, the run first went to client c1 at https://api.example.com',
		);
		expect(refusal?.description).toMatch(/Nothing was sent\. To finish this execution, put back the credential .* then Retry\. .* new execution, with a Business Reference/);
		expect(refusal?.context).toMatchObject({ attempted: false, field: 'credential', itemIndex: 0 });
	});

	it('refuses every row of a repeat whose Business References changed, naming the rows', async () => {
		const first: IDataObject = {};
		await runIdentityRefusal(nodeRun(first, [undefined, 'A', 'B']), 'payout', 0, operation('c1'));
		const repeat = nodeRun(stored(first), ['order-1', 'A', undefined]);
		const refusal = await runIdentityRefusal(repeat, 'payout', 2, operation('c1'));
		expect(refusal?.message).toBe(
			'Not sent: this run of the node is repeated with another identity than its first run in this execution: item 1\'s Business Reference is now "order-1", was none; item 3\'s Business Reference is now none, was "B"',
		);
		expect(refusal?.context).toMatchObject({ attempted: false, field: 'idempotency-key', itemIndex: 2 });
		expect((await runIdentityRefusal(repeat, 'payout', 1, operation('c1')))?.message).toBe(refusal?.message);
	});
});
