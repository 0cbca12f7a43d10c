/* private to core/b */
