from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("", include("api.urls")),
]

handler404 = "api.exceptions.json_404"
handler500 = "api.exceptions.json_500"
handler400 = "api.exceptions.json_400"
handler403 = "api.exceptions.json_403"
