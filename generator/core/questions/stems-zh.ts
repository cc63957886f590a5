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
  'Observations that state the answer: [': '陈述了答案的观察：[',
  'The file that the fix changes is (': '修复所改动的文件是 (',
  'The test patch that reproduces the issue is (': '能复现该问题的测试补丁是 (',
};

/** The stem a question in `language` ends with; languages without their own stems keep the English one. */
export function answerStemFor(englishStem: string, language: string): string {
  return language === 'zh' ? (ZH_ANSWER_STEMS[englishStem] ?? englishStem) : englishStem;
}

/**
 * The first words of each Chinese template's per-question block, keyed by the English header a
 * kind gives (types/*.ts): where a template has no `{{question_start}}` mark, the scored
 * segment is found by this header, so a zh prompt needs the zh one.
 */
export const ZH_QUESTION_HEADERS: Readonly<Record<string, string>> = {
  'Request: Cite the observations that state the answer to the question.': '请求：请找出陈述了问题答案的观察结果。',
  'Request: A setup command failed.': '要求：某条环境配置命令执行失败。',
  'Request: Write the next tool call': '要求：写出修复该问题的智能体的下一次工具调用',
};

export function questionHeaderFor(englishHeader: string, language: string): string {
  return language === 'zh' ? (ZH_QUESTION_HEADERS[englishHeader] ?? englishHeader) : englishHeader;
}

const OMITTED = /\[\.\.\. (\d+) characters omitted \.\.\.\]/g;

/** Text with the cut-observation marker (views.ts `middleCut`) in `language`: a Chinese prompt says 省略, not "characters omitted". */
export function omittedMarkersFor(text: string, language: string): string {
  return language === 'zh' ? text.replace(OMITTED, '[…… 省略 $1 个字符 ……]') : text;
}
