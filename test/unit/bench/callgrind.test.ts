import { engineWorkOf, totalOf } from '../../../bench/callgrind';

describe('reading callgrind output for the instruction counts', () => {
	it('reads the total of a dump from its summary line', () => {
		expect(totalOf('version: 1\ncreator: callgrind-3.19.0\nevents: Ir\nsummary: 730111764\n')).toBe(730111764);
		expect(() => totalOf('events: Ir\n')).toThrow('no summary');
	});

	it("adds up V8's compiler, deoptimisation and GC, counted once each, and nothing else", () => {
		const annotated = [
			'730,111,764 (100.0%)  PROGRAM TOTALS',
			"5,502,928,332 (753.7%)  ???:Builtins_BaselineOutOfLinePrologue'2 [/usr/bin/node]",
			'  261,363,087 (35.80%)  ???:v8::internal::Runtime_CompileOptimized(int, unsigned long*, v8::internal::Isolate*) [/usr/bin/node]',
			'  258,829,171 (35.45%)  ???:v8::internal::compiler::PipelineCompilationJob::ExecuteJobImpl(v8::internal::RuntimeCallStats*) [/usr/bin/node]',
			'   91,272,624 (11.50%)  ???:v8::internal::Runtime_NotifyDeoptimized(int, unsigned long*, v8::internal::Isolate*) [/usr/bin/node]',
			'   52,328,046 ( 7.17%)  ???:v8::internal::Heap::CollectGarbage(v8::internal::AllocationSpace, v8::internal::GarbageCollectionReason, v8::GCCallbackFlags) [/usr/bin/node]',
			'   51,940,437 ( 7.11%)  ???:v8::internal::ScavengerCollector::CollectGarbage() [/usr/bin/node]',
		].join('\n');
		expect(engineWorkOf(annotated)).toBe(261_363_087 + 91_272_624 + 52_328_046);
	});
});
