import { costsFromLog } from '../../../bench/server/costs';

describe('costsFromLog: what each event cost n8n, from its query and debug log', () => {
	const save = (table: string) => `query: UPDATE ${table} SET "staticData" = $1, "updatedAt" = "updatedAt" WHERE "id" = $2`;
	const log = (table: string) =>
		[
			'query: BEGIN',
			'query: INSERT INTO "execution_entity"("id") VALUES ($1)',
			save(table),
			'query: SELECT "WorkflowEntity"."id" FROM "workflow_entity" "WorkflowEntity"',
			'query: COMMIT',
			'debug [IsolatedVmBridge] Runtime bundle loaded',
		].join('\n');

	it.each([
		['SQLite', '"workflow_entity"'],
		['Postgres, tables named with their schema', '"public"."workflow_entity"'],
	])('%s: counts queries, writes, the static-data save and isolates per event', (_, table) => {
		expect(costsFromLog(log(table), 1)).toEqual({ queries: 3, writes: 2, staticDataWrites: 1, credentialReads: 0, isolatesBuilt: 1 });
	});
});
