import type { IDataObject, IExecuteFunctions, INode, ITaskData } from 'n8n-workflow';

import { approvalsOf } from '../../../../../nodes/Money/helpers/create/review';

const ARGS = { amount: 60000, beneficiary: 'GM-1002' };
const click = (approved = true): IDataObject => ({ data: { approved, respondedAt: '2026-12-06T12:00:00.000Z' } });
const run = (output: IDataObject, reviewed: IDataObject = ARGS, tool = 'Pay_supplier'): ITaskData =>
	({ data: { ai_tool: [[{ json: output }]] }, inputOverride: { ai_tool: [[{ json: { tool, toolParameters: reviewed } }]] } }) as unknown as ITaskData;

/** A tool call as n8n's engine runs it: the node it came from, that node's type and runs, the call's input. */
function call({ from = 'Human review', type = 'n8n-nodes-base.emailSendHitlTool', runs = [run(click())], args = ARGS, undeclared = true } = {}): IExecuteFunctions {
	const context = {
		getNode: () => ({ name: 'Pay supplier', type: 'n8n-nodes-money.moneyTool', parameters: { amount: "={{ $fromAI('amount') }}", beneficiaryIdentifier: "={{ $fromAI('beneficiary') }}" } }) as unknown as INode,
		getExecuteData: () => ({ source: { main: [{ previousNode: from }] } }),
		getInputData: () => [{ json: { chatInput: 'pay', tool: 'Pay', ...args, toolCallId: 'call_1' } }],
	};
	if (!undeclared) return context as unknown as IExecuteFunctions;
	return {
		...context,
		workflow: { getNode: (name: string) => ({ name, type }) as INode },
		runExecutionData: { resultData: { runData: { [from]: runs } } },
	} as unknown as IExecuteFunctions;
}

describe('an approved Human review', () => {
	it("is a person's click on a review node for exactly the call's parameters", () => {
		expect(approvalsOf(call(), 0)).toEqual([{ node: 'Human review', run: 0, responded_at: '2026-12-06T12:00:00.000Z' }]);
	});

	it.each([
		['a tool wired straight to the agent', call({ from: 'AI Agent', type: '@n8n/n8n-nodes-langchain.agent' })],
		['a denial', call({ runs: [run(click(false))] })],
		['a time-out that passed the model\'s own "approved" through', call({ runs: [run({ approved: true, data: { approved: true, respondedAt: 'x' }, toolParameters: ARGS })] })],
		['a click with anything beside it', call({ runs: [run({ data: { approved: true, respondedAt: 'x', by: 'model' } })] })],
		['a review of other parameters', call({ runs: [run(click(), { ...ARGS, amount: 6000 })] })],
		['a review that did not show an argument the tool takes', call({ runs: [run(click(), { amount: ARGS.amount })] })],
		['a review of an argument the call does not give', call({ runs: [run(click(), { ...ARGS, note: 'x' })] })],
		['a review given for another tool with the same arguments', call({ runs: [run(click(), ARGS, 'Charge_customer')] })],
		['an n8n that does not expose the run data', call({ undeclared: false })],
	])('is not %s', (_name, context) => {
		expect(approvalsOf(context, 0)).toEqual([]);
	});

	it('lists every approved run for the call, oldest first', () => {
		const approvals = approvalsOf(call({ runs: [run(click()), run(click(false)), run(click())] }), 0);
		expect(approvals.map((approval) => approval.run)).toEqual([0, 2]);
	});
});
