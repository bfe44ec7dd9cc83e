/*
 * words.h: lists of words as settings and attributes write them, the
 * words separated by commas and blanks ("alice, bob carol").
 */
#ifndef CONDOR_WORDS_H
#define CONDOR_WORDS_H

/*
 * words_has: 1 if WORD is one of LIST's words (compared exactly), else
 * 0; a NULL LIST has none.
 */
int	words_has(const char *list, const char *word);

#endif
