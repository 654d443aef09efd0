/** What other parts of Herald may use of web/; everything else in the folder is its own. */
