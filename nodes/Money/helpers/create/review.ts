import type { IDataObject, IExecuteFunctions, INode, ITaskData } from 'n8n-workflow';
import { nodeNameToToolName } from 'n8n-workflow';

import { stableStringify } from './memory';

/**
 * Whether an agent's call reached the Money tool through a person's approval in n8n's Human review
 * (docs/agents.md, "How an approval is proven"). n8n 2.x runs a gated tool after its review node
 * resumes, and runs it as the node the review resumed from; but a review that times out, or a
 * second gated call of the same model turn, also runs the tool with whatever `approved` the model
 * put in its arguments. So the call is taken as approved only when the node it came from is a
 * review node (type `…HitlTool`) with a run whose output is a person's click and nothing else,
 * `{ data: { approved: true, respondedAt } }`, for this tool and exactly these arguments, and that
 * run was not used by an earlier call. The run data is read from the execution context's `workflow` and
 * `runExecutionData`, which n8n does not declare to nodes: when they are missing, nothing is
 * approved.
 */

export interface Approval {
	node: string;
	run: number;
	responded_at: string;
}

interface ExecutionView {
	workflow?: { getNode?: (name: string) => INode | null };
	runExecutionData?: { resultData?: { runData?: Record<string, ITaskData[] | undefined> } };
}

const isObject = (value: unknown): value is IDataObject => !!value && typeof value === 'object' && !Array.isArray(value);

/** A person's click: the output holds the answer and when it came, nothing the model could pass through. */
function clickOf(task: ITaskData): string | undefined {
	const json = task.data?.ai_tool?.[0]?.[0]?.json;
	if (!isObject(json) || Object.keys(json).length !== 1 || !isObject(json.data)) return undefined;
	const { approved, respondedAt, ...rest } = json.data;
	return approved === true && typeof respondedAt === 'string' && Object.keys(rest).length === 0 ? respondedAt : undefined;
}

/** The names of the arguments the model gives this tool (its `$fromAI()` keys). */
function argumentNames(node: INode): string[] {
	return [...JSON.stringify(node.parameters).matchAll(/fromAI\(\s*\\?['"`]([^'"`\\]+)/gi)].map((match) => match[1]);
}

/**
 * The approvals the call could rest on, oldest first: runs of the review node it came from whose
 * reviewed parameters are exactly its own, each argument the tool takes and each one reviewed.
 */
export function approvalsOf(context: IExecuteFunctions, itemIndex: number): Approval[] {
	const reviewer = context.getExecuteData?.()?.source?.main?.[0]?.previousNode;
	if (!reviewer) return [];
	const view = context as unknown as ExecutionView;
	if (!view.workflow?.getNode?.(reviewer)?.type.endsWith('HitlTool')) return [];
	const args = context.getInputData()[itemIndex]?.json ?? {};
	const names = argumentNames(context.getNode());
	const tool = nodeNameToToolName(context.getNode());
	const approvals: Approval[] = [];
	for (const [run, task] of (view.runExecutionData?.resultData?.runData?.[reviewer] ?? []).entries()) {
		const respondedAt = clickOf(task);
		const input = task.inputOverride?.ai_tool?.[0]?.[0]?.json;
		const reviewed = input?.toolParameters;
		if (respondedAt === undefined || !isObject(reviewed) || input?.tool !== tool) continue;
		const compared = new Set([...names, ...Object.keys(reviewed)]);
		if ([...compared].every((name) => stableStringify(args[name]) === stableStringify(reviewed[name]))) approvals.push({ node: reviewer, run, responded_at: respondedAt });
	}
	return approvals;
}
