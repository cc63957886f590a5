/**
 * Chinese answer stems, keyed by the English stem each question kind writes (types/*.ts).
 * A zh question ends with the Chinese stem; the answer that follows (a letter, a command, a
 * tool call) and its closing suffix are unchanged, so scoring is the same in both languages.
 * Worded after APTBench's Chinese prompts (deepresearch_plan_zh: "正确的下一步应该是").
 */
export const ZH_ANSWER_STEMS: Readonly<Record<string, string>> = {
  'The correct next command is (': '正确的下一条命令是 (',
  'The correct next step should be (': '正确的下一步应该是 (',
  'The answer is [': '答案是 [',
  'Next call: ': '下一个工具调用：',
  'Next command: ': '下一条命令：',
  'The next command:\n```bash\n': '下一条命令：\n```bash\n',
  'The correct next step plan is (': '正确的下一步计划是 (',
  'The correct next steps are (': '正确的后续步骤是 (',
  'The correct patch is (': '正确的补丁是 (',
  'The command that fixes the error is (': '能修复该错误的命令是 (',
  'Supporting observations: [': '支持最终答案的观察：[',
  'The file that the fix changes is (': '修复所改动的文件是 (',
  'The test patch that reproduces the issue is (': '能复现该问题的测试补丁是 (',
};

/** The stem a question in `language` ends with; languages without their own stems keep the English one. */
export function answerStemFor(englishStem: string, language: string): string {
  return language === 'zh' ? (ZH_ANSWER_STEMS[englishStem] ?? englishStem) : englishStem;
}
