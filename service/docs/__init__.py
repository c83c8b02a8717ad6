"""What describes the API: the OpenAPI additions and examples, the problem pages,
Swagger UI and the referee console (its page lives in ``service/console``)."""
